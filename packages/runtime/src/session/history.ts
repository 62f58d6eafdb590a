import type { AgentMode, SessionEvent } from "@tandem/protocol";
import { completeInterruptedCalls } from "../loop/agent-loop.js";
import type { ConversationMessage, ModelToolCall } from "../loop/messages.js";
import { skillContextMessage } from "../skills/loader.js";
import { reasoningFromEventFields } from "../providers/reasoning.js";

function reasoningOf(fields: { reasoningText?: string; reasoningOpaque?: string; encryptedContent?: string }): { reasoning?: ReturnType<typeof reasoningFromEventFields> } {
  const reasoning = reasoningFromEventFields(fields);
  return reasoning ? { reasoning } : {};
}

/** What a session's persisted events say about its state. */
export interface RebuiltSession {
  messages: ConversationMessage[];
  model?: string;
  startTime?: string;
  firstPrompt?: string;
  lastEventId: string | null;
  mode?: AgentMode;
  selectedAgent?: string;
}

/**
 * Rebuilds the conversation the model saw from persisted events: user messages, assistant
 * messages with their tool calls, and tool results (in the order they completed). Tool calls left
 * without a result (a crash mid-turn) get the "interrupted" result so the history stays valid.
 */
export function rebuildFromEvents(events: readonly SessionEvent[]): RebuiltSession {
  const messages: ConversationMessage[] = [];
  const toolNames = new Map<string, string>();
  const rebuilt: RebuiltSession = { messages, lastEventId: null };
  // Messages that followed a round of tool results (skill instructions), added once that round ends.
  let followUps: string[] = [];
  const flushFollowUps = (): void => {
    completeInterruptedCalls(messages);
    for (const content of followUps) messages.push({ role: "user", content });
    followUps = [];
  };
  for (const event of events) {
    rebuilt.lastEventId = event.id;
    switch (event.type) {
      case "session.start":
        rebuilt.startTime = event.data.startTime;
        if (event.data.selectedModel) rebuilt.model = event.data.selectedModel;
        break;
      case "subagent.selected":
        rebuilt.selectedAgent = event.data.agentName;
        break;
      case "subagent.deselected":
        rebuilt.selectedAgent = undefined;
        break;
      case "session.mode_changed":
        rebuilt.mode = event.data.newMode as AgentMode;
        break;
      case "session.model_change":
        rebuilt.model = event.data.newModel;
        break;
      case "user.message": {
        if (event.data.content === undefined && event.data.transformedContent === undefined) break;
        flushFollowUps();
        rebuilt.firstPrompt ??= event.data.content;
        messages.push({ role: "user", content: event.data.transformedContent ?? event.data.content ?? "" });
        break;
      }
      case "assistant.message": {
        if (event.data.parentToolCallId) break;
        flushFollowUps();
        const toolCalls: ModelToolCall[] = (event.data.toolRequests ?? []).map((request) => {
          toolNames.set(request.toolCallId, request.name);
          return { id: request.toolCallId, name: request.name, rawArguments: JSON.stringify(request.arguments ?? {}) };
        });
        messages.push({
          role: "assistant",
          content: event.data.content,
          toolCalls,
          ...reasoningOf(event.data),
        });
        break;
      }
      case "tool.execution_complete": {
        if (event.data.parentToolCallId) break;
        const toolName = toolNames.get(event.data.toolCallId);
        if (toolName === undefined) break;
        const content = event.data.result?.content ?? event.data.error?.message ?? "";
        messages.push({ role: "tool", toolCallId: event.data.toolCallId, toolName, content });
        toolNames.delete(event.data.toolCallId);
        break;
      }
      case "skill.invoked":
        if (!(event.data as { parentToolCallId?: string }).parentToolCallId) followUps.push(skillContextMessage(event.data));
        break;
      default:
        break;
    }
  }
  flushFollowUps();
  return rebuilt;
}
