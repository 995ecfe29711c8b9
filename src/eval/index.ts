// `laconic-research/eval` (Node): datasets, grading, record/replay cassettes, and `evaluate`,
// which runs every question under every configuration into a resumable results folder.
export type { Dataset, DatasetProblem, EvalRow, Evidence } from './dataset.js'
export { parseDataset, type ColumnMapping, type DatasetFormat, type ReadDatasetOptions } from './formats.js'
export { readDataset } from './read-dataset.js'
export { containsAnswer, exactMatch, normalizeAnswer, tokenF1 } from './grade.js'
export { parseGrade, type ModelGrade } from './model-grader.js'
export { openCassette, type Cassette, type CassetteMode, type CassetteOptions } from './cassette.js'
export { evaluate, type EvalConfig, type EvalEndReason, type EvalEvent, type EvalOptions } from './evaluate.js'
export type { EvalRowResult, RowGrades } from './row-result.js'
export { readResults } from './results-file.js'
export { summarize, type ConfigSummary } from './summary.js'
export { htmlReport } from './html-report.js'
export { compareResults, type Comparison } from './compare.js'
