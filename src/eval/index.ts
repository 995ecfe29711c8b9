// `laconic-research/eval` (Node): datasets, record/replay cassettes, and `evaluate`, which runs
// every question under every configuration into a resumable results folder, then its reports.
// Only what a user names: the rest (grading, formats' fields, modes) is reached through these
// types (`EvalRowResult['grades']`, `ReadDatasetOptions['format']`, `CassetteOptions['mode']`).
export type { Dataset, EvalRow } from './dataset.js'
export type { ReadDatasetOptions } from './formats.js'
export { readDataset } from './read-dataset.js'
export { openCassette, type Cassette, type CassetteOptions } from './cassette.js'
export { evaluate, type EvalConfig, type EvalEvent, type EvalOptions } from './evaluate.js'
export type { EvalRowResult } from './row-result.js'
export { readResults } from './results-file.js'
export { summarize, type ConfigSummary } from './summary.js'
export { htmlReport } from './html-report.js'
export { compareResults, type Comparison } from './compare.js'
