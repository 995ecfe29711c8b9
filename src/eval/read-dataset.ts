import { readFile } from 'node:fs/promises'
import type { Dataset } from './dataset.js'
import { parseDataset, type ReadDatasetOptions } from './formats.js'

/** Reads a dataset file (see `parseDataset`): the format is guessed from its name and header unless given. */
export async function readDataset(path: string, options: ReadDatasetOptions = {}): Promise<Dataset> {
  const text = await readFile(path, 'utf8')
  return parseDataset(text, { ...options, path })
}
