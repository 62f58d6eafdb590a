/** Tandem Console, the browser app: sessions on the left, the open conversation on the right. */
import { api, openStream } from "./api.js";
import { ConversationView, errorMessageOf, errorTypeOf, type ConsoleMessage } from "./conversation.js";
import { h, relativeTime, setChildren } from "./dom.js";
import { enableCodeCopy } from "./markdown.js";
import type { TurnUsage } from "../src/messages.js";
import { SlashMenu, type SlashCommand } from "./slash.js";
import { WorkspacePanel } from "./workspace.js";

interface SessionRow {
  sessionId: string;
  title: string;
  cwd: string;
  model: string;
  modifiedTime: string;
}

interface ModelRow {
  id: string;
  name: string;
  capabilities?: { supports?: { reasoningEffort?: boolean } };
  supportedReasoningEfforts?: string[];
}

interface RewindPreview {
  available: boolean;
  reason?: string;
  message?: string;
  files: Array<{ path: string; changeType: string; linesAdded: number; linesRemoved: number }>;
}

const root = document.getElementById("app") as HTMLElement;
const banner = h("div", { class: "banner", hidden: true, "data-testid": "provider-banner" });
const sessionList = h("ul", { class: "session-list", "data-testid": "session-list" });
const modelSelect = h("select", { name: "model", "data-testid": "model-select" });
const modeSelect = h("select", { name: "mode" }, h("option", { value: "interactive" }, "Interactive"), h("option", { value: "plan" }, "Plan"), h("option", { value: "autopilot" }, "Autopilot"));
const effortSelect = h("select", { name: "reasoningEffort", "data-testid": "effort-select" });
const effortLabel = h("label", { hidden: true, "data-testid": "effort-label" }, "Reasoning effort", effortSelect);
const worktreeBox = h("input", { type: "checkbox", name: "worktreeIsolation", "data-testid": "worktree-isolation" });
const cwdInput = h("input", { name: "workingDirectory", type: "text", placeholder: "Working directory", "data-testid": "cwd-input" });
const modelNote = h("div", { class: "model-note", hidden: true, "data-testid": "model-note" });
const errorBar = h("div", { class: "error-bar", hidden: true, "data-testid": "error-bar" });
const title = h("h1", { class: "title", "data-testid": "title" }, "Tandem Console");
// Below 760 px the sidebar is a drawer behind this button.
const menuButton = h("button", { class: "menu-button", title: "Sessions", "aria-label": "Sessions", "data-testid": "sidebar-toggle", onclick: () => toggleSidebar() }, "☰");
const scrim = h("div", { class: "scrim", onclick: () => toggleSidebar(false) });
const modelLabel = h("span", { class: "model-label", "data-testid": "model-label" });
const modeLabel = h("span", { class: "mode-label", "data-testid": "mode-label" });
const turnUsageLabel = h("span", { class: "turn-usage", hidden: true, "data-testid": "turn-usage", title: "Tokens of this turn (all its model calls)" });
const intent = h("span", { class: "intent" });
const meterFill = h("div", { class: "meter-fill" });
const meter = h("div", { class: "meter", hidden: true, "data-testid": "context-meter", title: "Context window" }, h("div", { class: "meter-bar" }, meterFill), h("span", { class: "meter-text" }));
const main = h("main", { class: "main" });
const queueList = h("ul", { class: "queue", "data-testid": "queue" });
const prompt = h("textarea", { class: "prompt", rows: 3, placeholder: "Message Tandem (Enter to send, Shift+Enter for a new line, Esc to stop)", "data-testid": "prompt" });
const sendButton = h("button", { class: "send", "data-testid": "send" }, "Send");
const queueButton = h("button", { class: "enqueue", hidden: true, "data-testid": "enqueue" }, "Queue");
const stopButton = h("button", { class: "stop", disabled: true, "data-testid": "stop" }, "Stop");
const dialog = h("div", { class: "dialog", hidden: true, "data-testid": "undo-dialog" });
const slashMenu = new SlashMenu(prompt);
const workspacePanel = new WorkspacePanel();

let models: ModelRow[] = [];
let current: { view: ConversationView; source: EventSource; busy: boolean } | undefined;
/** The session being created: a message sent meanwhile waits for it (and goes to it). */
let creating: Promise<string> | undefined;
/** The listed sessions by id (the header shows a session's title before its stream opens). */
const listedSessions = new Map<string, SessionRow>();

function toggleSidebar(open = !document.body.classList.contains("sidebar-open")): void {
  document.body.classList.toggle("sidebar-open", open);
  menuButton.setAttribute("aria-expanded", String(open));
}

function showTitle(text: string | undefined): void {
  title.textContent = text || "New session";
  title.title = title.textContent;
}

function showError(type: string, message: string): void {
  setChildren(errorBar, h("strong", {}, type), ": ", message, h("button", { class: "dismiss", onclick: () => (errorBar.hidden = true) }, "×"));
  errorBar.hidden = false;
}

async function guarded(action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    showError(errorTypeOf(error), errorMessageOf(error));
  }
}

async function loadSessions(): Promise<void> {
  const { sessions } = await api<{ sessions: SessionRow[] }>("GET", "sessions");
  listedSessions.clear();
  for (const session of sessions) listedSessions.set(session.sessionId, session);
  setChildren(
    sessionList,
    ...sessions.map((session) => {
      const remove = h("button", { class: "delete", title: "Delete this session", "data-testid": "delete-session" }, "Delete");
      remove.addEventListener("click", (event) => {
        event.stopPropagation();
        if (remove.dataset.confirm !== "true") {
          remove.dataset.confirm = "true";
          remove.textContent = "Confirm delete";
          return;
        }
        void guarded(async () => {
          await api("DELETE", `sessions/${encodeURIComponent(session.sessionId)}`);
          if (current?.view.sessionId === session.sessionId) location.hash = "";
          await loadSessions();
        });
      });
      return h(
        "li",
        {
          class: `session${current?.view.sessionId === session.sessionId ? " active" : ""}`,
          "data-session-id": session.sessionId,
          onclick: () => (location.hash = `#/s/${session.sessionId}`),
        },
        h("div", { class: "session-title" }, session.title || "Untitled session"),
        h("div", { class: "session-meta", title: session.cwd }, session.cwd),
        h("div", { class: "session-meta" }, [session.model, relativeTime(session.modifiedTime)].filter(Boolean).join(" · ")),
        remove,
      );
    }),
  );
}

function closeSession(text = "Type a message to start a new session, or pick one from the list."): void {
  current?.source.close();
  current = undefined;
  title.textContent = "Tandem Console";
  modelLabel.textContent = "";
  modeLabel.textContent = "";
  meter.hidden = true;
  showTurnUsage(undefined);
  queueList.replaceChildren();
  document.body.dataset.busy = "false";
  stopButton.disabled = true;
  sendButton.textContent = "Send";
  queueButton.hidden = true;
  workspacePanel.hide();
  setChildren(main, h("div", { class: "empty" }, text));
}

function setBusy(busy: boolean): void {
  if (!current) return;
  current.busy = busy;
  document.body.dataset.busy = String(busy);
  stopButton.disabled = !busy;
  sendButton.textContent = busy ? "Steer" : "Send";
  queueButton.hidden = !busy;
  if (!busy) {
    const sessionId = current.view.sessionId;
    void workspacePanel.load(sessionId).catch(() => undefined);
  }
}

function showTurnUsage(usage: TurnUsage | undefined): void {
  turnUsageLabel.hidden = !usage;
  if (!usage) return;
  const cached = usage.cacheReadTokens ? ` (${usage.cacheReadTokens.toLocaleString()} cached)` : "";
  turnUsageLabel.textContent = `This turn: ${usage.inputTokens.toLocaleString()} in${cached} · ${usage.outputTokens.toLocaleString()} out · ${usage.modelCalls} model call${usage.modelCalls === 1 ? "" : "s"}`;
}

async function forkSession(toEventId: string | undefined): Promise<void> {
  if (!current) return;
  const { sessionId } = await api<{ sessionId: string }>("POST", `sessions/${encodeURIComponent(current.view.sessionId)}/fork`, toEventId ? { eventId: toEventId } : {});
  location.hash = `#/s/${sessionId}`;
}

async function loadCommands(sessionId: string): Promise<void> {
  const { commands } = await api<{ commands: SlashCommand[] }>("GET", `sessions/${encodeURIComponent(sessionId)}/commands`);
  if (current?.view.sessionId === sessionId) slashMenu.setCommands(commands);
}

async function refreshQueue(): Promise<void> {
  if (!current) return;
  const sessionId = current.view.sessionId;
  const queue = await api<{ items: Array<{ id: string; displayText: string }> }>("GET", `sessions/${encodeURIComponent(sessionId)}/queue`);
  setChildren(
    queueList,
    ...queue.items.map((item) =>
      h(
        "li",
        { class: "queued", "data-queue-id": item.id },
        h("span", {}, item.displayText),
        h("button", { class: "remove", onclick: () => void guarded(() => api("DELETE", `sessions/${encodeURIComponent(sessionId)}/queue/${encodeURIComponent(item.id)}`).then(refreshQueue)) }, "Remove"),
      ),
    ),
  );
}

async function undoTo(eventId: string): Promise<void> {
  if (!current) return;
  const sessionId = current.view.sessionId;
  const preview = await api<RewindPreview>("POST", `sessions/${encodeURIComponent(sessionId)}/rewind-preview`, { eventId });
  const cancel = h("button", { class: "cancel", onclick: () => (dialog.hidden = true) }, "Cancel");
  const confirm = h("button", { class: "confirm", "data-testid": "confirm-undo" }, "Undo");
  confirm.addEventListener("click", () => {
    dialog.hidden = true;
    void guarded(async () => {
      const result = await api<{ outcome: string; error?: string; restoredFiles: string[] }>("POST", `sessions/${encodeURIComponent(sessionId)}/rewind`, { eventId });
      if (result.outcome !== "success") showError(result.outcome, result.error ?? "the rewind did not complete");
      reopen();
    });
  });
  const files = preview.files.length
    ? h("ul", { class: "undo-files" }, ...preview.files.map((file) => h("li", { "data-path": file.path }, `${file.changeType} ${file.path} (+${file.linesAdded} −${file.linesRemoved})`)))
    : h("p", {}, preview.available ? "No files change." : `Files cannot be restored: ${preview.message ?? preview.reason ?? "unavailable"}. Only the conversation is rewound.`);
  setChildren(dialog, h("div", { class: "dialog-box" }, h("h2", {}, "Undo to here?"), h("p", {}, "This message and everything after it is removed, and these files are restored:"), files, h("div", { class: "dialog-actions" }, cancel, confirm)));
  dialog.hidden = false;
}

function reopen(): void {
  if (current) openSession(current.view.sessionId);
}

function openSession(sessionId: string): void {
  current?.source.close();
  toggleSidebar(false);
  showTitle(listedSessions.get(sessionId)?.title);
  modelLabel.textContent = "";
  modeLabel.textContent = "";
  meter.hidden = true;
  showTurnUsage(undefined);
  workspacePanel.hide();
  slashMenu.setCommands([]);
  queueList.replaceChildren();
  const view = new ConversationView(sessionId, {
    setBusy,
    setTitle: (text) => {
      showTitle(text);
      void loadSessions();
    },
    setModel: (model) => (modelLabel.textContent = model ?? ""),
    setIntent: (text) => (intent.textContent = text),
    setUsage: (used, limit) => {
      meter.hidden = false;
      meterFill.style.width = `${Math.min(100, Math.round((used / Math.max(1, limit)) * 100))}%`;
      (meter.querySelector(".meter-text") as HTMLElement).textContent = `${used.toLocaleString()} / ${limit.toLocaleString()} tokens`;
    },
    setTurnUsage: showTurnUsage,
    setMode: (mode) => {
      modeLabel.textContent = mode ?? "";
      modeLabel.dataset.mode = mode ?? "";
    },
    fork: (toEventId) => void guarded(() => forkSession(toEventId)),
    showError,
    refreshQueue: () => void guarded(refreshQueue),
    reload: reopen,
    undoTo: (eventId) => void guarded(() => undoTo(eventId)),
  });
  const source = openStream(sessionId, (message) => {
    view.handle(message as ConsoleMessage);
    if ((message as ConsoleMessage).kind === "snapshot") document.body.dataset.sessionReady = sessionId;
  });
  current = { view, source, busy: false };
  document.body.dataset.sessionReady = "";
  setBusy(false);
  setChildren(main, view.element);
  void loadSessions();
  void guarded(() => loadCommands(sessionId));
}

/**
 * Sends the prompt to the open session; to the one being created when "New session" was just
 * pressed; with no session, it starts one (with the form's settings) first. A message that could
 * not be sent goes back into the box.
 */
async function send(mode: "immediate" | "enqueue" | undefined): Promise<void> {
  const text = prompt.value.trim();
  if (!text) return;
  prompt.value = "";
  slashMenu.hide();
  try {
    const sessionId = creating ? await creating : current ? current.view.sessionId : await startSession();
    const busy = current?.view.sessionId === sessionId && current.busy;
    await api("POST", `sessions/${encodeURIComponent(sessionId)}/send`, { prompt: text, mode: busy ? (mode ?? "immediate") : undefined });
  } catch (error) {
    if (!prompt.value.trim()) prompt.value = text;
    throw error;
  }
}

async function abort(): Promise<void> {
  if (current?.busy) await api("POST", `sessions/${encodeURIComponent(current.view.sessionId)}/abort`);
}

/** Creates a session with the form's settings and opens it; what is typed meanwhile goes to it. */
function startSession(): Promise<string> {
  if (creating) return creating;
  // The session open until now must not get what is typed next.
  if (current) location.hash = "";
  closeSession("Starting a new session…");
  toggleSidebar(false);
  const started = (async () => {
    const { sessionId } = await api<{ sessionId: string }>("POST", "sessions", {
      model: modelSelect.value,
      mode: modeSelect.value,
      workingDirectory: cwdInput.value,
      reasoningEffort: effortLabel.hidden ? undefined : effortSelect.value || undefined,
      worktreeIsolation: worktreeBox.checked,
    });
    location.hash = `#/s/${sessionId}`;
    openSession(sessionId);
    return sessionId;
  })();
  creating = started;
  started.then(
    () => (creating = undefined),
    () => {
      creating = undefined;
      if (!current) closeSession();
    },
  );
  return started;
}

async function createSession(event: Event): Promise<void> {
  event.preventDefault();
  await startSession();
  prompt.focus();
}

function route(): void {
  const match = /^#\/s\/(.+)$/.exec(location.hash);
  if (match?.[1] && match[1] !== current?.view.sessionId) openSession(decodeURIComponent(match[1]));
  if (!match && current && !creating) closeSession();
}

function layout(): void {
  const newSession = h(
    "form",
    { class: "new-session", "data-testid": "new-session", onsubmit: (event: Event) => void guarded(() => createSession(event)) },
    h("label", {}, "Model", modelSelect),
    modelNote,
    h("label", {}, "Mode", modeSelect),
    effortLabel,
    h("label", {}, "Working directory", cwdInput),
    h("label", { class: "checkbox" }, worktreeBox, "Isolate in a git worktree (own branch)"),
    h("button", { type: "submit", "data-testid": "create-session" }, "New session"),
  );
  prompt.addEventListener("keydown", (event) => {
    if (slashMenu.handleKey(event)) return;
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      void guarded(() => send(undefined));
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") void guarded(abort);
  });
  sendButton.addEventListener("click", () => void guarded(() => send("immediate")));
  queueButton.addEventListener("click", () => void guarded(() => send("enqueue")));
  stopButton.addEventListener("click", () => void guarded(abort));
  // Reasoning effort only for a model that supports it, with the efforts it lists.
  modelSelect.addEventListener("change", () => {
    const model = models.find((row) => row.id === modelSelect.value);
    const supported = model?.capabilities?.supports?.reasoningEffort ?? false;
    effortLabel.hidden = !supported;
    const efforts = model?.supportedReasoningEfforts?.length ? model.supportedReasoningEfforts : ["low", "medium", "high"];
    setChildren(effortSelect, h("option", { value: "" }, "Default"), ...efforts.map((effort) => h("option", { value: effort }, effort)));
  });
  enableCodeCopy(root);
  setChildren(
    root,
    h("aside", { class: "sidebar", "data-testid": "sidebar" }, h("div", { class: "brand" }, "Tandem Console"), banner, newSession, h("h2", {}, "Sessions"), sessionList),
    scrim,
    h(
      "section",
      { class: "workspace" },
      h("header", { class: "header" }, menuButton, title, modelLabel, modeLabel, intent, turnUsageLabel, meter),
      errorBar,
      h("div", { class: "main-column" }, workspacePanel.element, main),
      h("footer", { class: "composer" }, queueList, slashMenu.element, h("div", { class: "composer-row" }, prompt, h("div", { class: "composer-buttons" }, sendButton, queueButton, stopButton))),
    ),
    dialog,
  );
}

/**
 * The models of the new-session picker: `models.list`, or, when the provider lists none (no
 * `GET /models`), the configured model or the runtime's default, said so under the picker.
 */
async function loadModels(): Promise<void> {
  const listed = await api<{ models: ModelRow[]; unavailable?: string; configured?: string }>("GET", "models").catch((error: unknown) => ({
    models: [] as ModelRow[],
    unavailable: errorMessageOf(error),
    configured: undefined,
  }));
  models = listed.models;
  if (models.length) {
    setChildren(modelSelect, ...models.map((model) => h("option", { value: model.id }, model.name || model.id)));
  } else {
    setChildren(modelSelect, h("option", { value: listed.configured ?? "" }, listed.configured ?? "Default model"));
    modelNote.textContent = `The provider lists no models${listed.unavailable ? ` (${listed.unavailable})` : ""}: new sessions use ${listed.configured ?? "the runtime's default model"}.`;
  }
  modelNote.hidden = models.length > 0;
  modelSelect.dispatchEvent(new Event("change"));
}

async function start(): Promise<void> {
  layout();
  closeSession();
  const info = await api<{ provider: { scripted: boolean; description: string }; defaultCwd: string }>("GET", "info");
  cwdInput.value = info.defaultCwd;
  if (info.provider.scripted) {
    banner.textContent = info.provider.description;
    banner.hidden = false;
  }
  await loadModels();
  await loadSessions();
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.ready = "true";
}

void guarded(start);
