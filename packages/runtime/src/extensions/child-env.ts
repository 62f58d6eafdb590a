import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Credentials an extension never inherits from the runtime: model and GitHub tokens, API keys,
 * the TCP connection token (and whatever `--auth-token-env` named).
 */
const secretNames = /^(GH_TOKEN|GITHUB_TOKEN|COPILOT_GITHUB_TOKEN|COPILOT_SDK_AUTH_TOKEN|COPILOT_CONNECTION_TOKEN|TANDEM_CONNECTION_TOKEN)$|_API_KEY$|_AUTH_TOKEN$/;

/**
 * Where the SDK the application chose for its extensions lies (1.0.x `extensionSdkPath`: a folder
 * holding `index.js` and `extension.js`), for the preload's resolve hooks.
 */
export const extensionSdkPathVariable = "TANDEM_EXTENSION_SDK_PATH";

/**
 * The environment an extension starts with: the runtime's own without secrets (and without
 * NODE_OPTIONS, which could carry loaders of the runtime's), plus `SESSION_ID` and, when the
 * application named one, the SDK folder its extensions import (`TANDEM_EXTENSION_SDK_PATH`).
 */
export function extensionEnv(env: NodeJS.ProcessEnv, sessionId: string, extraSecret?: string, sdkPath?: string): NodeJS.ProcessEnv {
  const child: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (secretNames.test(name) || name === extraSecret || name === "NODE_OPTIONS" || name === "NODE_DEBUG") continue;
    child[name] = value;
  }
  child.SESSION_ID = sessionId;
  delete child[extensionSdkPathVariable];
  if (sdkPath !== undefined) child[extensionSdkPathVariable] = sdkPath;
  return child;
}

/**
 * The preload that makes the SDK importable in an extension: `bundle/extension-sdk/register.js`,
 * found next to the bundled runtime's code (or, for the unbundled `dist/` build, in the package's
 * `bundle/`). Undefined when neither exists (the runtime was not built with `build.mjs`).
 */
export function findSdkPreload(moduleUrl: string = import.meta.url): string | undefined {
  for (const candidate of ["./extension-sdk/register.js", "../../bundle/extension-sdk/register.js"]) {
    const url = new URL(candidate, moduleUrl);
    if (existsSync(fileURLToPath(url))) return url.href;
  }
  return undefined;
}
