import type { PermissionRequest, SessionEvent } from "@tandem/protocol";
import type { ConsoleMessage, PendingAsk, PendingElicitation, PendingPlanExit, TurnUsage } from "../src/messages.js";
import { accessToken, api } from "./api.js";
import { ToolCard, type Decision } from "./cards.js";
import { h, setChildren } from "./dom.js";
import { highlightCode, renderMarkdown } from "./markdown.js";
import { elicitationCard, planExitCard, settleRequestCard, type ElicitationAnswer, type PlanExitAnswer } from "./requests.js";

export type { ConsoleMessage } from "../src/messages.js";

/** What the conversation tells the rest of the page. */
export interface ConversationHost {
  setBusy(busy: boolean): void;
  setTitle(title: string): void;
  setModel(model: string | undefined): void;
  setIntent(intent: string): void;
  setUsage(current: number, limit: number): void;
  /** The tokens of the running (or last) turn, summed over its model calls. */
  setTurnUsage(usage: TurnUsage | undefined): void;
  setMode(mode: string | undefined): void;
  /** Forks the session keeping the history before `toEventId` (all of it when undefined). */
  fork(toEventId: string | undefined): void;
  showError(type: string, message: string): void;
  refreshQueue(): void;
  /** The conversation was rewound: reopen the stream for the new history. */
  reload(): void;
  undoTo(eventId: string): void;
}

/** Renders one session's events: messages (streamed markdown), reasoning, tool cards, requests. */
export class ConversationView {
  readonly element = h("div", { class: "conversation", "data-testid": "conversation" });
  readonly #messages = new Map<string, { element: HTMLElement; text: string; scheduled: boolean }>();
  readonly #reasoning = new Map<string, HTMLElement>();
  readonly #cards = new Map<string, ToolCard>();
  /** Permission requests whose card has not been seen yet, or that have no tool call. */
  readonly #permissionCards = new Map<string, ToolCard>();
  readonly #asks = new Map<string, HTMLElement>();
  /** Open forms and plans by request id. */
  readonly #requests = new Map<string, HTMLElement>();
  #turnUsage: TurnUsage | undefined;
  /** The agent said what it is doing this turn (`assistant.intent`). */
  #reportedIntent = false;
  /** The session's working directory: paths under it are shown relative to it. */
  #cwd: string | undefined;
  /** The element that scrolls the conversation, and whether it follows new content. */
  #scroller: HTMLElement | undefined;
  #following = true;

  constructor(
    readonly sessionId: string,
    readonly host: ConversationHost,
  ) {}

  handle(message: ConsoleMessage): void {
    this.#watchScrolling();
    if (message.kind === "snapshot") this.#following = true;
    switch (message.kind) {
      case "snapshot":
        this.element.replaceChildren();
        this.#cwd = message.cwd;
        if (message.title) this.host.setTitle(message.title);
        for (const event of withRewindsApplied(message.history)) this.#onEvent(event, true);
        for (const pending of message.permissions) this.#onPermissionRequested(pending.requestId, pending.permissionRequest);
        for (const ask of message.asks) this.#onAsk(ask);
        for (const form of message.elicitations) this.#onElicitation(form);
        for (const plan of message.planExits) this.#onPlanExit(plan);
        if (message.usage) this.#onEvent(message.usage, false);
        this.#turnUsage = message.turnUsage;
        this.host.setTurnUsage(message.turnUsage);
        this.host.setModel(message.model);
        this.host.setMode(message.mode);
        this.host.setBusy(message.busy);
        this.host.refreshQueue();
        break;
      case "event":
        this.#onEvent(message.event, false);
        break;
      case "ask":
        this.#onAsk(message.ask);
        break;
      case "ask-answered":
        this.#onAskAnswered(message.id, message.answer);
        break;
      case "permission-answered":
        this.#onPermissionDone(message.requestId, message.decision !== "reject");
        break;
      case "error":
        this.host.showError(message.type, message.error);
        break;
    }
    this.#stickToEnd();
  }

  /** The conversation follows new content while the reader is at its end, not while they read back. */
  #watchScrolling(): void {
    const scroller = this.element.parentElement;
    if (!scroller || this.#scroller === scroller) return;
    this.#scroller = scroller;
    scroller.addEventListener("scroll", () => {
      this.#following = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
    });
  }

  #stickToEnd(): void {
    if (this.#following && this.#scroller) this.#scroller.scrollTop = this.#scroller.scrollHeight;
  }

  #onEvent(event: SessionEvent, replay: boolean): void {
    switch (event.type) {
      case "user.message": {
        const undo = h("button", { class: "undo", title: "Restore the files and the conversation to just before this message", onclick: () => this.host.undoTo(event.id) }, "Undo to here");
        const message = h("div", { class: "message user", "data-event-id": event.id }, h("div", { class: "bubble" }, event.data.content ?? ""));
        const fork = h("button", { class: "fork", title: "A new session with the conversation up to the end of this turn", onclick: () => this.host.fork(this.#nextTurnId(message)) }, "Fork from here");
        message.append(h("div", { class: "message-actions" }, fork, undo));
        this.element.append(message);
        if (!replay) {
          this.host.setBusy(true);
          this.#turnUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, modelCalls: 0 };
          this.host.setTurnUsage(this.#turnUsage);
        }
        break;
      }
      case "assistant.usage": {
        const base = this.#turnUsage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, modelCalls: 0 };
        this.#turnUsage = {
          inputTokens: base.inputTokens + (event.data.inputTokens ?? 0),
          outputTokens: base.outputTokens + (event.data.outputTokens ?? 0),
          cacheReadTokens: base.cacheReadTokens + (event.data.cacheReadTokens ?? 0),
          modelCalls: base.modelCalls + 1,
        };
        this.host.setTurnUsage(this.#turnUsage);
        break;
      }
      case "elicitation.requested":
        this.#onElicitation({ ...event.data, source: event.data.elicitationSource, requestedSchema: event.data.requestedSchema as PendingElicitation["requestedSchema"] });
        break;
      case "exit_plan_mode.requested":
        this.#onPlanExit(event.data);
        break;
      case "elicitation.completed":
      case "exit_plan_mode.completed":
        this.#onRequestDone(event.data.requestId, event.type === "elicitation.completed" ? "Form answered" : "Plan answered");
        break;
      case "session.mode_changed":
        this.host.setMode(event.data.newMode);
        break;
      case "subagent.started":
        this.#cards.get(event.data.toolCallId)?.setAgent(event.data.agentDisplayName || event.data.agentName);
        break;
      case "assistant.message_delta":
        this.#messageText(event.data.messageId, (text) => text + event.data.deltaContent);
        break;
      case "assistant.message":
        if (event.data.content || this.#messages.has(event.data.messageId)) this.#messageText(event.data.messageId, () => event.data.content, true);
        break;
      case "assistant.reasoning_delta": {
        const body = this.#reasoningView(event.data.reasoningId);
        if (body.dataset.complete !== "true") body.append(event.data.deltaContent);
        break;
      }
      case "assistant.reasoning": {
        const body = this.#reasoningView(event.data.reasoningId);
        body.textContent = event.data.content;
        body.dataset.complete = "true";
        break;
      }
      case "assistant.intent":
        this.#reportedIntent = true;
        this.host.setIntent(event.data.intent);
        break;
      case "tool.execution_start":
        this.#toolStart(event.data.toolCallId, event.data.toolName, event.data.arguments, event.data.parentToolCallId);
        if (event.data.mcpServerName) this.#cards.get(event.data.toolCallId)?.setMcp(event.data.mcpServerName, event.data.mcpToolName ?? event.data.toolName);
        // Without an intent from the agent (`assistant.intent`), the line says what the main agent's tool does.
        if (!replay && !this.#reportedIntent && !event.data.parentToolCallId) this.host.setIntent(toolIntent(event.data.toolName, event.data.arguments));
        break;
      case "tool.execution_partial_result":
        this.#cards.get(event.data.toolCallId)?.appendOutput(event.data.partialOutput);
        break;
      case "tool.execution_progress":
        this.#cards.get(event.data.toolCallId)?.progress(event.data.progressMessage);
        break;
      case "tool.execution_complete":
        this.#cards.get(event.data.toolCallId)?.complete(event.data.success, event.data.result?.content, event.data.error?.message, event.data.sandboxed);
        break;
      case "permission.requested":
        this.#onPermissionRequested(event.data.requestId, event.data.permissionRequest);
        break;
      case "permission.completed":
        this.#onPermissionDone(event.data.requestId, event.data.result.kind === "approved");
        break;
      case "session.error":
        this.element.append(h("div", { class: "error", "data-error-type": event.data.errorType }, h("strong", {}, event.data.errorType), ": ", event.data.message));
        break;
      case "session.warning":
        this.element.append(h("div", { class: "notice warning" }, event.data.message));
        break;
      case "abort":
        this.element.append(h("div", { class: "notice aborted" }, `Stopped (${event.data.reason})`));
        break;
      case "session.idle":
        this.host.setBusy(false);
        this.#reportedIntent = false;
        this.host.setIntent("");
        break;
      case "session.title_changed":
        this.host.setTitle(event.data.title);
        break;
      case "session.model_change":
        this.host.setModel(event.data.newModel);
        break;
      case "session.usage_info":
        this.host.setUsage(event.data.currentTokens, event.data.tokenLimit);
        break;
      case "pending_messages.modified":
        this.host.refreshQueue();
        break;
      case "session.snapshot_rewind":
        if (!replay) this.host.reload();
        break;
    }
  }

  #messageText(messageId: string, update: (text: string) => string, final = false): void {
    let entry = this.#messages.get(messageId);
    if (!entry) {
      entry = { element: h("div", { class: "message assistant markdown", "data-message-id": messageId }), text: "", scheduled: false };
      this.#messages.set(messageId, entry);
      this.element.append(entry.element);
    }
    // A tab that opens during a turn can get a message's streamed deltas after the finished
    // message (from the history it opened with): the finished text stands.
    if (!final && entry.element.dataset.complete === "true") return;
    entry.text = update(entry.text);
    if (final) {
      entry.element.innerHTML = renderMarkdown(entry.text);
      entry.element.dataset.complete = "true";
      highlightCode(entry.element, accessToken);
      return;
    }
    // Re-render at most once per frame while deltas stream in.
    if (entry.scheduled) return;
    entry.scheduled = true;
    const current = entry;
    requestAnimationFrame(() => {
      current.scheduled = false;
      current.element.innerHTML = renderMarkdown(current.text);
      highlightCode(current.element, accessToken);
      this.#stickToEnd();
    });
  }

  #reasoningView(reasoningId: string): HTMLElement {
    let body = this.#reasoning.get(reasoningId);
    if (!body) {
      body = h("div", { class: "reasoning-body" });
      this.#reasoning.set(reasoningId, body);
      this.element.append(h("details", { class: "reasoning" }, h("summary", {}, "Reasoning"), body));
    }
    return body;
  }

  #toolStart(toolCallId: string, toolName: string, args: unknown, parentToolCallId: string | undefined): void {
    if (this.#cards.has(toolCallId)) return;
    const card = new ToolCard(toolCallId, toolName, args, this.#cwd);
    this.#cards.set(toolCallId, card);
    const parent = parentToolCallId ? this.#cards.get(parentToolCallId) : undefined;
    (parent ? parent.children : this.element).append(card.element);
  }

  #onPermissionRequested(requestId: string, request: PermissionRequest): void {
    // A request can arrive twice: in the snapshot a tab opens with, and as its live event.
    if (this.#permissionCards.has(requestId)) return;
    let card = request.toolCallId ? this.#cards.get(request.toolCallId) : request.kind === "mcp" ? this.#mcpCard(request.serverName, request.toolName) : undefined;
    if (!card) {
      card = new ToolCard(request.toolCallId ?? requestId, request.kind, {}, this.#cwd);
      this.element.append(card.element);
    }
    card.element.dataset.requestId = requestId;
    this.#permissionCards.set(requestId, card);
    card.askPermission(request, (decision) => void this.#answerPermission(requestId, decision));
  }

  async #answerPermission(requestId: string, decision: Decision): Promise<void> {
    try {
      await api("POST", `sessions/${encodeURIComponent(this.sessionId)}/permission`, { requestId, decision });
    } catch (error) {
      this.host.showError(errorTypeOf(error), errorMessageOf(error));
    }
  }

  #onPermissionDone(requestId: string, approved: boolean): void {
    const card = this.#permissionCards.get(requestId);
    if (!card) return;
    this.#permissionCards.delete(requestId);
    card.permissionAnswered(approved);
  }

  /** The card of the tool that asks the user (`ask_user`, `exit_plan_mode`) says it waits for the answer. */
  #markAsking(toolName: string): void {
    const card = [...this.#cards.values()].reverse().find((candidate) => candidate.toolName === toolName && candidate.status === "pending");
    card?.setStatus("asking");
  }

  #onAsk(ask: PendingAsk): void {
    if (this.#asks.has(ask.id)) return;
    this.#markAsking("ask_user");
    const input = h("input", { type: "text", class: "ask-input", placeholder: "Your answer" });
    const send = (answer: string, wasFreeform: boolean) =>
      void api("POST", `sessions/${encodeURIComponent(this.sessionId)}/ask`, { id: ask.id, answer, wasFreeform }).catch((error: unknown) => this.host.showError(errorTypeOf(error), errorMessageOf(error)));
    const freeform = ask.allowFreeform !== false || !ask.choices?.length;
    const card = h(
      "div",
      { class: "ask-card", "data-ask-id": ask.id },
      h("div", { class: "ask-question" }, ask.question),
      h("div", { class: "ask-choices" }, ...(ask.choices ?? []).map((choice) => h("button", { class: "ask-choice", onclick: () => send(choice, false) }, choice))),
      freeform
        ? h(
            "form",
            {
              class: "ask-freeform",
              onsubmit: (event: Event) => {
                event.preventDefault();
                if (input.value.trim()) send(input.value, true);
              },
            },
            input,
            h("button", { type: "submit" }, "Answer"),
          )
        : null,
    );
    this.#asks.set(ask.id, card);
    this.element.append(card);
  }

  /** MCP permission requests carry no toolCallId (as the reference's): the latest card of that server's tool still preparing. */
  #mcpCard(serverName: string, toolName: string): ToolCard | undefined {
    return [...this.#cards.values()].reverse().find((card) => card.status === "pending" && card.isMcpTool(serverName, toolName));
  }

  /** The id of the user message after `message` (the turn after it), if any. */
  #nextTurnId(message: HTMLElement): string | undefined {
    let next = message.nextElementSibling;
    while (next && !next.matches(".message.user")) next = next.nextElementSibling;
    return (next as HTMLElement | null)?.dataset.eventId;
  }

  #onElicitation(request: PendingElicitation): void {
    if (this.#requests.has(request.requestId)) return;
    const card = elicitationCard(request, (answer) => void this.#answerRequest("elicitation", { requestId: request.requestId, ...answer }));
    this.#requests.set(request.requestId, card);
    this.element.append(card);
  }

  #onPlanExit(request: PendingPlanExit): void {
    if (this.#requests.has(request.requestId)) return;
    this.#markAsking("exit_plan_mode");
    const card = planExitCard(request, (answer) => void this.#answerRequest("plan-exit", { requestId: request.requestId, ...answer }));
    this.#requests.set(request.requestId, card);
    this.element.append(card);
  }

  async #answerRequest(kind: "elicitation" | "plan-exit", body: { requestId: string } & (ElicitationAnswer | PlanExitAnswer)): Promise<void> {
    try {
      await api("POST", `sessions/${encodeURIComponent(this.sessionId)}/${kind}`, body);
    } catch (error) {
      this.host.showError(errorTypeOf(error), errorMessageOf(error));
    }
  }

  #onRequestDone(requestId: string, text: string): void {
    const card = this.#requests.get(requestId);
    if (!card || card.dataset.answered) return;
    settleRequestCard(card, text);
  }

  #onAskAnswered(id: string, answer: string): void {
    const card = this.#asks.get(id);
    if (!card) return;
    card.dataset.answered = "true";
    setChildren(card, h("div", { class: "ask-question" }, card.querySelector(".ask-question")?.textContent ?? ""), h("div", { class: "ask-answer" }, answer ? `Answered: ${answer}` : "Withdrawn"));
  }
}

/**
 * The history as the conversation stands: the runtime keeps rewound events in the log and marks
 * the rewind with `session.snapshot_rewind` (from `upToEventId` on, the events left the conversation).
 */
export function withRewindsApplied(history: readonly SessionEvent[]): SessionEvent[] {
  const kept: SessionEvent[] = [];
  for (const event of history) {
    if (event.type !== "session.snapshot_rewind") {
      kept.push(event);
      continue;
    }
    const cut = kept.findIndex((earlier) => earlier.id === event.data.upToEventId);
    if (cut >= 0) kept.length = cut;
  }
  return kept;
}

/** A tool's intent line: its `description` argument when it has one (bash does), else its name. */
function toolIntent(toolName: string, args: unknown): string {
  const description = args && typeof args === "object" ? (args as Record<string, unknown>).description : undefined;
  return typeof description === "string" && description ? description : `Running ${toolName}`;
}

export function errorTypeOf(error: unknown): string {
  return error && typeof error === "object" && "type" in error ? String((error as { type: unknown }).type) : error instanceof Error ? error.name : "Error";
}

export function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
