/** A question for the user (the `ask_user` tool). */
export interface UserInputQuestion {
  question: string;
  choices?: string[];
  allowFreeform?: boolean;
}

/** The user's answer. */
export interface UserInputAnswer {
  answer: string;
  wasFreeform: boolean;
}

/**
 * Thrown when the user cannot be asked (no handler, no client, or the client failed).
 *
 * @example
 * if (!host.canAskUser) throw new UserInputUnavailable("no client registered a user-input handler");
 */
export class UserInputUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserInputUnavailable";
  }
}
