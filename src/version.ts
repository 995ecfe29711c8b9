/**
 * The package version, for the CLI and the MCP server. A constant rather than a read of
 * package.json, so the Web-standard entry points load it without `node:fs`;
 * test/version.test.ts keeps it equal to package.json's.
 */
export const VERSION = '0.2.0'
