/** Cards for what the agent asks the user beyond permissions: an MCP server's form, and its plan. */
import type { PendingElicitation, PendingPlanExit } from "../src/messages.js";
import { h, setChildren } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { checkForm, formFields, type FormField, type RawValues } from "./schema-form.js";

/** An answer to a form, as the server takes it. */
export type ElicitationAnswer = { action: "accept"; content: Record<string, unknown> } | { action: "decline" | "cancel" };

/** An answer to a plan (the official 1.0.x response). */
export interface PlanExitAnswer {
  approved: boolean;
  selectedAction?: string;
  feedback?: string;
}

function fieldInput(field: FormField): HTMLElement {
  const name = field.name;
  const base = { name, "data-field": name, required: field.required };
  switch (field.kind) {
    case "boolean":
      return h("input", { ...base, type: "checkbox", checked: field.defaultValue === true });
    case "enum":
      return h(
        "select",
        base,
        h("option", { value: "" }, field.required ? "Choose…" : "(none)"),
        ...(field.options ?? []).map((option) => h("option", { value: option.value, selected: field.defaultValue === option.value }, option.label)),
      );
    case "multi":
      return h(
        "div",
        { class: "form-multi", "data-field": name },
        ...(field.options ?? []).map((option) => h("label", {}, h("input", { type: "checkbox", value: option.value, checked: Array.isArray(field.defaultValue) && field.defaultValue.includes(option.value) }), option.label)),
      );
    case "number":
    case "integer":
      return h("input", { ...base, type: "number", step: field.kind === "integer" ? 1 : "any", min: field.minimum, max: field.maximum, value: typeof field.defaultValue === "number" ? field.defaultValue : undefined });
    default:
      return h("input", { ...base, type: field.format === "email" ? "email" : "text", maxlength: field.maxLength, value: typeof field.defaultValue === "string" ? field.defaultValue : undefined });
  }
}

function readValue(field: FormField, input: HTMLElement): string | boolean | string[] {
  if (field.kind === "boolean") return (input as HTMLInputElement).checked;
  if (field.kind === "multi") return [...input.querySelectorAll<HTMLInputElement>("input:checked")].map((box) => box.value);
  return (input as HTMLInputElement | HTMLSelectElement).value;
}

/**
 * A form generated from the request's JSON Schema: a select per enum, a checkbox per boolean,
 * number inputs with their bounds, required fields marked. Submit checks the values first and
 * shows each field's problem; nothing is sent until the form is right.
 */
export function elicitationCard(request: PendingElicitation, answer: (result: ElicitationAnswer) => void): HTMLElement {
  const fields = formFields(request.requestedSchema);
  const inputs = new Map<string, HTMLElement>();
  const errors = new Map<string, HTMLElement>();
  const rows = fields.map((field) => {
    const input = fieldInput(field);
    const error = h("div", { class: "field-error", "data-error-for": field.name, hidden: true });
    inputs.set(field.name, input);
    errors.set(field.name, error);
    return h(
      "div",
      { class: `form-row kind-${field.kind}` },
      h("label", { class: "form-label" }, field.label, field.required ? h("span", { class: "required", title: "required" }, " *") : null),
      field.description ? h("div", { class: "form-help" }, field.description) : null,
      input,
      error,
    );
  });
  const form = h("form", { class: "elicitation-form", novalidate: true }, ...rows);
  const submit = (event: Event) => {
    event.preventDefault();
    const raw: RawValues = {};
    for (const field of fields) raw[field.name] = readValue(field, inputs.get(field.name)!);
    const checked = checkForm(fields, raw);
    for (const field of fields) {
      const error = errors.get(field.name)!;
      const message = checked.ok ? undefined : checked.errors[field.name];
      error.textContent = message ?? "";
      error.hidden = !message;
    }
    form.dataset.invalid = String(!checked.ok);
    if (checked.ok) answer({ action: "accept", content: checked.content });
  };
  form.addEventListener("submit", submit);
  form.append(
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "accept", "data-action": "accept" }, "Submit"),
      h("button", { type: "button", class: "decline", "data-action": "decline", onclick: () => answer({ action: "decline" }) }, "Decline"),
      h("button", { type: "button", class: "cancel", "data-action": "cancel", onclick: () => answer({ action: "cancel" }) }, "Cancel"),
    ),
  );
  return h(
    "div",
    { class: "request-card elicitation", "data-request-id": request.requestId },
    h("div", { class: "request-title" }, request.source ? `${request.source} asks` : "A form"),
    h("div", { class: "request-message" }, request.message),
    form,
  );
}

const actionLabels: Record<string, string> = {
  autopilot: "Approve and run in autopilot",
  interactive: "Approve, step by step (interactive)",
  exit_only: "Exit plan mode only",
  autopilot_fleet: "Approve and run in autopilot with a fleet",
};

/** The agent's plan (rendered markdown) with the runtime's choices, the recommended one first-styled, feedback, and "keep planning". */
export function planExitCard(request: PendingPlanExit, answer: (response: PlanExitAnswer) => void): HTMLElement {
  const feedback = h("textarea", { class: "plan-feedback", rows: 2, placeholder: "Feedback for the agent (optional)" });
  const withFeedback = (response: PlanExitAnswer): PlanExitAnswer => (feedback.value.trim() ? { ...response, feedback: feedback.value.trim() } : response);
  const plan = h("div", { class: "plan-content markdown" });
  plan.innerHTML = renderMarkdown(request.planContent);
  const choices = request.actions.map((action) =>
    h(
      "button",
      { class: `plan-action${action === request.recommendedAction ? " recommended" : ""}`, "data-action": action, onclick: () => answer(withFeedback({ approved: true, selectedAction: action })) },
      actionLabels[action] ?? action,
      action === request.recommendedAction ? h("span", { class: "badge" }, "recommended") : null,
    ),
  );
  return h(
    "div",
    { class: "request-card plan-exit", "data-request-id": request.requestId },
    h("div", { class: "request-title" }, "The plan is ready"),
    h("div", { class: "request-message" }, request.summary),
    plan,
    feedback,
    h("div", { class: "plan-actions" }, ...choices, h("button", { class: "plan-keep", "data-action": "keep-planning", onclick: () => answer(withFeedback({ approved: false })) }, "Keep planning")),
  );
}

/** The card once answered (here, in another tab, or withdrawn). */
export function settleRequestCard(card: HTMLElement, text: string): void {
  card.dataset.answered = "true";
  const title = card.querySelector(".request-title")?.textContent ?? "";
  const message = card.querySelector(".request-message")?.textContent ?? "";
  setChildren(card, h("div", { class: "request-title" }, title), h("div", { class: "request-message" }, message), h("div", { class: "request-answer" }, text));
}
