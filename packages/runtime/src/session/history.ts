import type { AgentMode, SessionContext, SessionEvent } from "@tandem/protocol";
import { subAgentRunOf } from "../compat/profile.js";
import { completeInterruptedCalls } from "../loop/agent-loop.js";
import type { ConversationMessage, ModelToolCall } from "../loop/messages.js";
import { skillContextMessage } from "../skills/loader.js";
import { reasoningFromEventFields } from "../providers/reasoning.js";
import { failoverWarningType, failoverNoticeMessage, summaryOf, userConversationMessage } from "./user-message.js";
import { replayCompaction } from "../compaction/rebuild.js";

function reasoningOf(fields: { reasoningText?: string; reasoningOpaque?: string; encryptedContent?: string }): { reasoning?: ReturnType<typeof reasoningFromEventFields> } {
  const reasoning = reasoningFromEventFields(fields);
  return reasoning ? { reasoning } : {};
}

/** What a session's persisted events say about its state. */
export interface RebuiltSession {
  messages: ConversationMessage[];
  model?: string;
  /** The reasoning effort last set (session.start, then model changes). */
  reasoningEffort?: string;
  startTime?: string;
  firstPrompt?: string;
  lastEventId: string | null;
  mode?: AgentMode;
  selectedAgent?: string;
  /** The working directory of the first `session.start`. */
  cwd?: string;
  /** The context last announced (`session.start`, then `session.context_changed`). */
  context?: SessionContext;
  /** The message id of each idempotency key a recorded `user.message` carries (see `send-keys.ts`). */
  sendKeys?: Record<string, string>;
}

/** A {@link HistoryRebuilder}'s state as plain data (see `snapshot`). */
export interface HistorySnapshot {
  messages: ConversationMessage[];
  toolNames: Array<[string, string]>;
  followUps: string[];
  fields: Omit<RebuiltSession, "messages">;
}

/** A persisted event that still belongs to the conversation (not removed by a rewind). */
export interface LiveEvent {
  id: string;
  /** How many conversation messages there were before this event. */
  messagesBefore: number;
  /** Set for the `user.message` events of root user turns (rewind points). */
  turn?: { userMessage: string; timestamp: string; source?: string };
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
  /** The persisted events still in the conversation, in order (`session.snapshot_rewind` removes a suffix). */
  readonly live: LiveEvent[] = [];
  /** Rewinds whose target was not among `live` (a rebuilder restored from a snapshot knows only the later events). */
  unresolvedRewinds = 0;

  /**
   * The state after the events added so far, as plain data (JSON-safe) that {@link restore} takes
   * back: everything the events after them need, except `live` (rewind targets), which grows with
   * every event.
   */
  snapshot(): HistorySnapshot {
    const { messages: _messages, ...fields } = this.rebuilt;
    return { messages: this.messages, toolNames: [...this.toolNames], followUps: this.followUps, fields };
  }

  /** A rebuilder that continues from a {@link snapshot} (with an empty `live`). */
  static restore(snapshot: HistorySnapshot): HistoryRebuilder {
    const rebuilder = new HistoryRebuilder();
    rebuilder.messages.push(...snapshot.messages);
    for (const [id, name] of snapshot.toolNames) rebuilder.toolNames.set(id, name);
    rebuilder.followUps = [...snapshot.followUps];
    Object.assign(rebuilder.rebuilt, snapshot.fields);
    return rebuilder;
  }

  /** Takes the next persisted event. */
  add(event: SessionEvent): void {
    const { messages, toolNames, rebuilt } = this;
    rebuilt.lastEventId = event.id;
    const live: LiveEvent = { id: event.id, messagesBefore: messages.length };
    if (event.type === "session.snapshot_rewind") {
      this.rewindTo(event.data.upToEventId);
      live.messagesBefore = messages.length;
    }
    this.live.push(live);
    // A sub-agent's own conversation (its prompt, agent and model) is not the session's.
    const subAgent = subAgentRunOf(event);
    if (event.type === "user.message" || event.type === "subagent.selected" || event.type === "session.model_change") {
      if (subAgent !== undefined) return;
    }
    switch (event.type) {
      case "session.start":
        rebuilt.startTime = event.data.startTime;
        rebuilt.cwd ??= event.data.context?.cwd;
        rebuilt.context = event.data.context ?? rebuilt.context;
        if (event.data.selectedModel) rebuilt.model = event.data.selectedModel;
        if (event.data.reasoningEffort) rebuilt.reasoningEffort = event.data.reasoningEffort;
        break;
      case "session.context_changed":
        rebuilt.context = event.data;
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
        if (event.data.reasoningEffort) rebuilt.reasoningEffort = event.data.reasoningEffort;
        break;
      case "user.message": {
        if (event.data.content === undefined && event.data.transformedContent === undefined) break;
        this.flushFollowUps();
        live.messagesBefore = messages.length;
        if (subAgent === undefined && event.data.content !== undefined && event.data.source !== "system") {
          live.turn = { userMessage: event.data.content, timestamp: event.timestamp, ...(event.data.source ? { source: event.data.source } : {}) };
        }
        if (rebuilt.firstPrompt === undefined && event.data.content !== undefined) rebuilt.firstPrompt = summaryOf(event.data.content);
        const { idempotencyKey, messageId } = event.data as { idempotencyKey?: unknown; messageId?: unknown };
        if (typeof idempotencyKey === "string" && typeof messageId === "string") rebuilt.sendKeys = { ...rebuilt.sendKeys, [idempotencyKey]: messageId };
        messages.push(userConversationMessage(event.data, event.timestamp));
        break;
      }
      case "assistant.message": {
        if (subAgent !== undefined) break;
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
        if (subAgent !== undefined) break;
        const toolName = toolNames.get(event.data.toolCallId);
        if (toolName === undefined) break;
        const content = event.data.result?.content ?? event.data.error?.message ?? "";
        messages.push({ role: "tool", toolCallId: event.data.toolCallId, toolName, content });
        toolNames.delete(event.data.toolCallId);
        break;
      }
      case "session.context_cleared":
        messages.length = 0;
        this.followUps = [];
        toolNames.clear();
        break;
      case "session.compaction_complete":
        // Not a flush point: a background compaction may finish while a tool call is running.
        if (subAgent === undefined) replayCompaction(messages, event.data);
        break;
      case "skill.invoked":
        if (subAgent === undefined) this.followUps.push(skillContextMessage(event.data));
        break;
      case "session.warning":
        if (subAgent === undefined && event.data.warningType === failoverWarningType) {
          this.flushFollowUps();
          messages.push(failoverNoticeMessage(event.data.message));
        }
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

  /**
   * Applies a rewind: the conversation goes back to what it was before `eventId`; that event and
   * the later ones leave `live` (the marker itself then joins it). An unknown id changes nothing.
   */
  private rewindTo(eventId: string): void {
    const index = this.live.findLastIndex((entry) => entry.id === eventId);
    const target = this.live[index];
    if (!target) {
      this.unresolvedRewinds++;
      return;
    }
    this.messages.length = target.messagesBefore;
    this.live.length = index;
    this.followUps = [];
    this.toolNames.clear();
  }

  private flushFollowUps(): void {
    completeInterruptedCalls(this.messages);
    for (const content of this.followUps) this.messages.push({ role: "user", content });
    this.followUps = [];
  }
}
