/**
 * Builds the page with Vite (React through @vitejs/plugin-react) into `outDir`: what
 * `npx vite build examples/chat` does, callable from the server and the tests.
 */
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { build } from 'vite'

/** Where the page's sources are (`index.html`, `src/`). */
export const APP_ROOT = fileURLToPath(new URL('.', import.meta.url))

/** Builds the page into `outDir` (emptied first). */
export async function buildApp(outDir: string): Promise<void> {
  await build({
    root: APP_ROOT,
    configFile: false,
    mode: 'production',
    logLevel: 'warn',
    plugins: [react()],
    // React and the AI SDK's client make one bundle of about 450 kB: fine for an example.
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 1024 },
  })
}
