/** Plain JSON: what a checkpoint holds, a strategy saves and events carry. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }
