/**
 * @tandem/testkit: a scripted fake model server over real HTTP, for tests,
 * demos and benchmarks.
 */
export { ModelServer } from "./server.js";
export { CopilotUsers } from "./github-users.js";
export { GitHubMcpEndpoint } from "./github-mcp.js";
export type { GitHubMcpRequest, GitHubMcpToolSpec } from "./github-mcp.js";
export type { CopilotUserSpec, UserLookup } from "./github-users.js";
export type { ModelServerOptions, RecordedRequest } from "./server.js";
export { loadScript, loadScripts, parseScript, parseScripts, validateScript } from "./script.js";
export type { ErrorSpec, ExpectSpec, ReplySpec, Script, ScriptStep, ToolCallSpec, UsageSpec } from "./script.js";
export { ScriptValidationError } from "./validate.js";
export { defaultModels } from "./formats/models.js";
export type { ModelSpec } from "./formats/models.js";
export type { WireFormatName } from "./formats/types.js";
