/** A GitHub account logged in to the runtime (`account.login`). */
export interface StoredAccount {
  host: string;
  login: string;
  token: string;
}

/**
 * The GitHub accounts logged in to this runtime (`account.login` / `account.logout`), most recent
 * last; the current account is the one logged in last. Accounts are kept in memory only, for the
 * runtime's life: Tandem has no system keychain to put a token in and does not write tokens in
 * plain text, so `account.login` answers `storedInVault: false`. The current account's token is
 * the runtime's GitHub token for sessions without their own (after `--auth-token-env`).
 *
 * @example
 * const accounts = new AccountStore();
 * accounts.login({ host: "https://github.com", login: "octocat", token });
 * accounts.current()?.login; // "octocat"
 */
export class AccountStore {
  private readonly accounts: StoredAccount[] = [];

  /** Adds an account (replacing one with the same host and login) and makes it current. */
  login(account: StoredAccount): void {
    this.remove(account.host, account.login);
    this.accounts.push({ ...account });
  }

  /** Removes the account of `host` and `login`; answers whether other accounts remain, and the removed one. */
  logout(host: string, login: string): { removed: StoredAccount | undefined; hasMoreUsers: boolean } {
    const removed = this.remove(host, login);
    return { removed, hasMoreUsers: this.accounts.length > 0 };
  }

  /** The current account (logged in last), if any. */
  current(): StoredAccount | undefined {
    return this.accounts.at(-1);
  }

  /** The account whose {@link selectionIdOf} is `selectionId`, if any. */
  find(selectionId: string): StoredAccount | undefined {
    return this.accounts.find((account) => selectionIdOf(account) === selectionId);
  }

  /** Every account, oldest first. */
  all(): StoredAccount[] {
    return this.accounts.map((account) => ({ ...account }));
  }

  private remove(host: string, login: string): StoredAccount | undefined {
    const index = this.accounts.findIndex((account) => sameHost(account.host, host) && account.login === login);
    if (index < 0) return undefined;
    return this.accounts.splice(index, 1)[0];
  }
}

/** The opaque id `account.getAllUsers` gives an account (`account.getQuota` takes it back). */
export function selectionIdOf(account: Pick<StoredAccount, "host" | "login">): string {
  return `user:${account.login}@${account.host.replace(/\/+$/, "").toLowerCase()}`;
}

function sameHost(left: string, right: string): boolean {
  return left.replace(/\/+$/, "").toLowerCase() === right.replace(/\/+$/, "").toLowerCase();
}
