/**
 * What a session with an Anthropic, Azure or OpenAI responses provider needs of the AI SDK path,
 * in one module that `resolve.ts` imports on the session's first model call: a session on chat
 * completions (the default) never loads it.
 * @module
 */
export { AiSdkModelClient } from "./ai-sdk-client.js";
export { anthropicAdapter } from "./anthropic.js";
export { azureAdapter } from "./azure.js";
export { openAIResponsesAdapter } from "./openai-responses.js";
