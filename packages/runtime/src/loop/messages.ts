// The conversation types moved to the bottom layer (ports/), where providers and compaction can
// import them without reaching up into the loop; this keeps the loop's own imports unchanged.
export { parseToolArguments } from "../ports/conversation.js";
export type { ConversationMessage, ModelToolCall, ReasoningData, ToolImage, ToolSpec, UserImage } from "../ports/conversation.js";
