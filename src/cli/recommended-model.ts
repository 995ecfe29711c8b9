/** A small instruct model that runs on a laptop's CPU: what the CLI suggests when no model server answers. */
export const RECOMMENDED_LOCAL_MODEL = 'hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf'
