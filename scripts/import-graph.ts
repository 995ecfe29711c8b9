/**
 * The relative imports of the TypeScript files under a folder, read with a regular expression
 * (TypeScript 7 has no compiler API). Type-only and lazy (`import('…')`) imports count too: a
 * layer that names another's type depends on it as much as one that calls it.
 *
 * The pattern only matches an `import`/`export` at the start of a line, so examples inside doc
 * comments (` * import …`) are not taken for imports.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix, sep } from 'node:path'

export interface Import {
  /** The importing file, relative to the repository root, with `/` separators. */
  from: string
  /** The imported file, the same way (`.js` in the specifier read as the `.ts` source). */
  to: string
  /** `import('…')`: loaded when first used, not when the importer loads. */
  lazy: boolean
}

const STATIC = /^\s*(?:import|export)\b[^;'"`]*?\bfrom\s*'(\.[^']+)'|^\s*import\s*'(\.[^']+)'/gm
const LAZY = /\bimport\(\s*'(\.[^']+)'\s*\)/g

/** Every `.ts` file under `folder` (relative to `root`), as repository-relative `/` paths. */
export function sourceFiles(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => toPosix(join(folder, file)))
    .sort()
}

/** The relative imports of one file whose text is `text`. */
export function importsOf(file: string, text: string): Import[] {
  const resolve = (specifier: string) => posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts')
  const found: Import[] = []
  for (const match of text.matchAll(STATIC)) found.push({ from: file, to: resolve((match[1] ?? match[2]) as string), lazy: false })
  for (const match of text.matchAll(LAZY)) found.push({ from: file, to: resolve(match[1] as string), lazy: true })
  return found
}

/** The relative imports of every `.ts` file under `folder`. */
export function importGraph(root: string, folder: string): Import[] {
  return sourceFiles(root, folder).flatMap((file) => importsOf(file, readFileSync(join(root, file), 'utf8')))
}

/** The import cycles among `imports`: each a sorted list of the files that reach one another. */
export function cycles(imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>()
  for (const { from, to } of imports) next.set(from, [...(next.get(from) ?? []), to])
  // Tarjan's strongly connected components: a component of two or more files is a cycle.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file) as number)
    stack.push(file)
    onStack.add(file)
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number))
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop() as string
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || next.get(file)?.includes(file)) found.push(component.sort())
  }
  for (const file of next.keys()) if (!index.has(file)) visit(file)
  return found
}

/** The source file of each entry point: `./dist/adapters/index.js` → `src/adapters/index.ts`. */
export function entrySources(exports: Record<string, unknown>): Map<string, string> {
  const sources = new Map<string, string>()
  for (const [subpath, target] of Object.entries(exports)) {
    const file = typeof target === 'object' && target !== null ? (target as { default?: string }).default : undefined
    if (file?.startsWith('./dist/')) sources.set(subpath, file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))
  }
  return sources
}

const toPosix = (path: string): string => path.split(sep).join('/')
