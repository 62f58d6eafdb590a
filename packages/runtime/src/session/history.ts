import type { AgentMode, SessionEvent } from "@tandem/protocol";
import { completeInterruptedCalls } from "../loop/agent-loop.js";
import type { ConversationMessage, ModelToolCall } from "../loop/messages.js";
import { skillContextMessage } from "../skills/loader.js";
import { reasoningFromEventFields } from "../providers/reasoning.js";
import { modelTextOfUserMessage, summaryOf } from "./user-message.js";
import { replayCompaction } from "../compaction/rebuild.js";

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
  /** The working directory of the first `session.start`. */
  cwd?: string;
}

/**
 * Rebuilds the conversation the model saw from persisted events, one event at a time (so a resume
 * keeps no parsed event longer than it takes to read it): user messages, assistant messages with
 * their tool calls, and tool results (in the order they completed). Tool calls left without a
 * result (a crash mid-turn) get the "interrupted" result so the history stays valid.
 *
 * @example
 * const history = new HistoryRebuilder();
 * await readEventsFile<SessionEvent>(path, logger, (event) => history.add(event));
 * const { messages, lastEventId } = history.finish();
 */
export class HistoryRebuilder {
  private readonly messages: ConversationMessage[] = [];
  private readonly toolNames = new Map<string, string>();
  private readonly rebuilt: RebuiltSession = { messages: this.messages, lastEventId: null };
  /** Messages that followed a round of tool results (skill instructions), added once that round ends. */
  private followUps: string[] = [];

  /** Takes the next persisted event. */
  add(event: SessionEvent): void {
    const { messages, toolNames, rebuilt } = this;
    rebuilt.lastEventId = event.id;
    switch (event.type) {
      case "session.start":
        rebuilt.startTime = event.data.startTime;
        rebuilt.cwd ??= event.data.context?.cwd;
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
        this.flushFollowUps();
        if (rebuilt.firstPrompt === undefined && event.data.content !== undefined) rebuilt.firstPrompt = summaryOf(event.data.content);
        messages.push({ role: "user", content: modelTextOfUserMessage(event.data, event.timestamp) });
        break;
      }
      case "assistant.message": {
        if (event.data.parentToolCallId) break;
        this.flushFollowUps();
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
      case "session.compaction_complete":
        // Not a flush point: a background compaction may finish while a tool call is running.
        replayCompaction(messages, event.data);
        break;
      case "skill.invoked":
        if (!(event.data as { parentToolCallId?: string }).parentToolCallId) this.followUps.push(skillContextMessage(event.data));
        break;
      default:
        break;
    }
  }

  /** The state after the last event. */
  finish(): RebuiltSession {
    this.flushFollowUps();
    return this.rebuilt;
  }

  private flushFollowUps(): void {
    completeInterruptedCalls(this.messages);
    for (const content of this.followUps) this.messages.push({ role: "user", content });
    this.followUps = [];
  }
}
