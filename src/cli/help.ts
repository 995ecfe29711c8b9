import { DEFAULT_SERVE_PORT } from './args.js'

/** `laconic --help`: every flag with its default, the exit codes, and examples to copy. */
export function helpText(strategies: readonly string[]): string {
  return `laconic: research a question on the web with a small model, and answer with sources.

Usage:
  laconic [options] QUESTION...
  laconic [options] --prompt FILE [--var KEY=VALUE ...]
  laconic [options] --serve [PORT]
  laconic worker --redis URL [--concurrency N] [options]   run queued research (docs/scale-out.md); a dead worker's
                                                           runs move on within --lock-ms MS (5000) + 2 × --stall-ms MS (1000)
  laconic serve --redis URL [--port P] [--host H]          a web node: POST /runs, SSE, the live page
  laconic mcp [--http PORT] [--sessions DIR] [options]     the research tool for MCP clients (stdio, or HTTP on 127.0.0.1);
                                                           --sessions DIR keeps conversations across restarts;
                                                           --idle-ms MS closes an idle HTTP session (900000, 15 min)
  laconic index DIR|FILE|URL ... --kb PATH [--embed-* ...]   index documents into the knowledge base at PATH
  laconic kb list|remove [ID|PATH ...] --kb PATH           list its documents (--format json|ndjson for scripts),
                                                           or remove some (a folder: all under it)
  laconic eval DATASET --out DIR [--strategies A,B] [--models M1,M2] [--cassette DIR [--replay]]
                                                           accuracy, evidence and cost on a question set
                                                           (laconic eval --help; compare DIR_A DIR_B; report DIR)
  laconic resume RUN_ID --checkpoint-dir DIR [--approve [--tool-args JSON] | --reject [REASON] | --plan-file FILE | --query Q ...] [model and search options]

Question:
  --prompt FILE            read the question from FILE (- for stdin)
  --var KEY=VALUE          replace {{KEY}} in the question; repeatable

Model:
  --backend NAME           ollama (default) | openai | anthropic | local (a GGUF file in-process: -m PATH|hf:URI)
  -m, --model NAME         model name; optional with ollama (the first installed model is used)
  --endpoint URL           ollama: $OLLAMA_HOST or http://localhost:11434
                           openai: https://api.openai.com/v1 (a bare host gets /v1 appended)
                           anthropic: https://api.anthropic.com
  --api-key KEY            or $OPENAI_API_KEY / $ANTHROPIC_API_KEY
  --price IN,OUT           the model's price in dollars per million input,output tokens
                           (default: the built-in table; a local model costs 0; else "cost unknown")
  --max-cost DOLLARS       stop exploring near this spend and answer with what was found

Research:
  -s, --strategy NAME      ${strategies.join(' | ')} (default scratchpad)
  --max-steps N            steps at most: scratchpad 5 search rounds, graph-reader 8 queries,
                           reflect 2 rounds, deep 3 sub-questions, react 8 model calls
  --tool-approval          react: ask on the terminal before each tool call (yes, no, edit its
                           arguments, or pause); without a terminal, with --checkpoint-dir, each
                           call pauses the run (exit 4)
  --concurrency N          searches and page reads in flight at once (default 4)
  --knowledge FILE         start from what FILE knows; write the updated knowledge back
  --checkpoint-dir DIR     save a checkpoint after every step in DIR; the run id is printed at the
                           start and in [done]; \`laconic resume RUN_ID --checkpoint-dir DIR\` continues it
  --verify [MODE]          check each sentence of the answer against the sources it cites (lexically,
                           then the model where words cannot settle it): annotate (default) marks
                           each verdict; revise also rewrites the answer without unsupported ones
  --mcp "CMD ARGS"|URL     react: the tools of this MCP server (a command started over stdio, or a
                           Streamable HTTP URL), started for the run and closed after; repeatable;
                           implies -s react
  --language TAG           research and answer in this language (BCP 47: de, fr, pt-BR): answers and
                           reports in it, queries in it and, where useful, in English too
  --approve-plan           show the plan (a report's outline) on the terminal and ask: run it, edit
                           it, reject it (with a reason), or pause;
                           without a terminal, with --checkpoint-dir, pause after the plan (exit 4);
                           with --serve and --checkpoint-dir, the page approves or rejects it

Resuming a paused run (laconic resume RUN_ID):
  --approve                run what waits: the saved plan, or the waiting tool call
  --reject [REASON]        refuse what waits: a tool call (the model is told REASON), or the plan
                           (the run ends with nothing searched)
  --tool-args JSON         run the waiting tool call with these arguments instead (a JSON object)
  --plan-file FILE         run these queries instead of the saved plan (one per line, # comments)
  --query Q                a query to run instead of the saved plan; repeatable

Search and reading:
  --search NAME[,NAME...]  duckduckgo (default) | brave | tavily | searxng | local, or papers and
                           references: arxiv | openalex | semanticscholar | pubmed | wikipedia
                           (wikipedia:de for another language); several names are searched
                           together, their rankings fused and each work kept once
  --allow DOMAIN           use only sources on DOMAIN and its subdomains; repeatable or a,b,c
  --deny DOMAIN            never use sources on DOMAIN or its subdomains (results dropped, pages
                           not fetched); repeatable or a,b,c
  --after DATE             only sources published on or after DATE (2024-01-31, 2024-01 or 2024);
                           undated ones are kept
  --before DATE            only sources published on or before DATE
  --brave-key KEY          or $BRAVE_API_KEY
  --tavily-key KEY         or $TAVILY_API_KEY
  --searxng-url URL        or $SEARXNG_URL, e.g. http://localhost:8080
  --corpus DIR             search the .md/.txt/.html/.pdf/.docx files in DIR, offline (implies --search local)
  --kb PATH                search the knowledge base at PATH, offline; with --search NAME, beside
                           the web (results merged, titles labelled [kb] and [web])
  --memory PATH            long-term memory in the folder PATH (created on first use): recall what
                           earlier runs found, and remember what this one finds
  --embed-backend NAME     the embedder of --kb and --memory: ollama (default) | openai | local
  --embed-model NAME       e.g. nomic-embed-text; remembered in PATH by laconic index (and --memory)
  --embed-endpoint URL     the embedder's server (default: the one PATH recorded, else --endpoint
                           when --embed-backend is --backend, else that backend's default)
  --embed-api-key KEY      or $OPENAI_API_KEY
  --no-fetch               read only search snippets, never whole pages or documents
  --browser                read pages whose text is written by scripts in headless Chromium
                           (needs playwright-core and a system chromium)

Output:
  -f, --format NAME        pretty (default): the answer on stdout, progress on stderr
                           ndjson: one event per line; json: the final result
  -o, --output FILE        also write the answer (or the report) and its sources to FILE, as the
                           extension says: .md, .html, .docx (needs docx) or .pdf (needs Chromium)
  --serve [PORT]           serve the live research page and its runs as SSE (default port ${DEFAULT_SERVE_PORT})
  --debug                  print every prompt and reply to stderr (keys redacted), and stack traces
  -v, --version            print the version
  -h, --help               print this help

Exit codes:
  0 answered · 1 error · 2 usage error · 3 best-effort answer at the iteration cap
  4 paused (a plan or a tool call waits for approval) · 130 interrupted (Ctrl-C)

Examples:
  laconic "Why is the sky blue?"
  laconic -m qwen3:4b --strategy graph-reader --max-steps 6 "Who designed the Eiffel Tower's elevators?"
  laconic --backend openai -m gpt-4o-mini --search brave "What changed in Node 22?"
  laconic --backend openai --endpoint localhost:8080 -m local "What is RAG?"   # llama.cpp, LM Studio, vLLM
  laconic --prompt question.txt --var CITY=Lyon --knowledge notes.txt
  laconic --corpus ./docs --no-fetch "How do I configure the cache?"
  laconic index ./docs https://example.com/guide --kb ./kb --embed-model nomic-embed-text
  laconic --kb ./kb --search duckduckgo "How do I configure the cache?"
  laconic --format ndjson "What is WebGPU?" | jq -c 'select(.type == "fact") | .fact.text'
  laconic --serve 8080 --strategy reflect
  laconic --verify revise -s graph-reader "When was the Bitcoin paper published?"
  laconic --checkpoint-dir .laconic --approve-plan -s deep "How do heat pumps work?"
  laconic resume 0c9d…e1 --checkpoint-dir .laconic --query "heat pump efficiency" --query "heat pump cost"
`
}
