/**
 * `--knowledge FILE`: what earlier runs learned goes in as `knowledge`, and the run's updated
 * knowledge is written back, so follow-up questions build on it. A missing file is a first run.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { UsageError } from './usage-error.js'

export async function readKnowledge(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return ''
    throw new UsageError(`cannot read --knowledge ${path}: ${(error as Error).message}`)
  }
}

/** Writes `knowledge` unless it is empty (a run that learned nothing keeps the file as it was). */
export async function writeKnowledge(path: string, knowledge: string): Promise<boolean> {
  if (!knowledge.trim()) return false
  try {
    await writeFile(path, knowledge.endsWith('\n') ? knowledge : `${knowledge}\n`, 'utf8')
    return true
  } catch (error) {
    throw new LaconicError(`cannot write the updated knowledge to ${path}: ${(error as Error).message}`, {
      code: 'config',
      hint: 'check that the folder exists and is writable',
      cause: error,
    })
  }
}
