import type { SessionScopePort } from "../ports/session-scope.js";
import { randomUUID } from "node:crypto";
import { UserInputUnavailable, type UserInputAnswer, type UserInputQuestion } from "../ports/user-input.js";
import { askAbleClient } from "../ports/client-asks.js";

export { UserInputUnavailable } from "../ports/user-input.js";
export type { UserInputAnswer, UserInputQuestion } from "../ports/user-input.js";

/**
 * What the broker reads of its session's scope: the `requestUserInput` flag of its configuration
 * (the application registered a user-input handler), the clients to ask and how long to wait for
 * one that went away to be replaced.
 */
export type UserInputHost = Pick<SessionScopePort, "sessionId" | "emitter" | "logger" | "config" | "clients" | "clientReaskMs">;

/**
 * Asks the user a question through `userInput.request` on a client that registered a user-input
 * handler (the most recent such client when several share the session), with
 * `user_input.requested` / `user_input.completed` events around it.
 */
export class UserInputBroker {
  constructor(private readonly host: UserInputHost) {}

  async ask(toolCallId: string, question: UserInputQuestion, signal: AbortSignal): Promise<UserInputAnswer> {
    const owner = this.host.clients.clientFor({ kind: "userInput" });
    if (this.host.config.requestUserInput !== true) throw new UserInputUnavailable("The application did not register a user input handler.");
    if (!owner) throw new UserInputUnavailable("No client is connected to answer.");
    const requestId = randomUUID();
    const allowFreeform = question.allowFreeform ?? true;
    const request = { sessionId: this.host.sessionId, question: question.question, ...(question.choices ? { choices: question.choices } : {}), allowFreeform };
    // The client asked may go away before answering (its node died): the next one is asked.
    const response = askAbleClient(this.host.clients, { kind: "userInput" }, (port) => port.sendRequest<{ answer?: unknown; wasFreeform?: unknown }>("userInput.request", request, signal), {
      signal,
      waitMs: this.host.clientReaskMs,
    });
    this.host.emitter.emit("user_input.requested", {
      requestId,
      question: question.question,
      ...(question.choices ? { choices: question.choices } : {}),
      allowFreeform,
      toolCallId,
    });
    let answered: { answer: string; wasFreeform: boolean } | undefined;
    try {
      const answer = await response;
      if (typeof answer?.answer !== "string") throw new UserInputUnavailable("The user input handler returned no answer.");
      answered = { answer: answer.answer, wasFreeform: answer.wasFreeform === true };
      return answered;
    } catch (error) {
      if (signal.aborted || error instanceof UserInputUnavailable) throw error;
      this.host.logger.warn("userInput.request failed", error);
      throw new UserInputUnavailable(`The user could not be asked: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.host.emitter.emit("user_input.completed", { requestId, ...answered });
    }
  }
}
