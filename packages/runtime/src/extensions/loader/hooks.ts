// Module resolve hooks for extension processes, built to `bundle/extension-sdk/hooks.js` next to the
// SDK bundled for them (`index.js`, `extension.js`). ESM ignores NODE_PATH, hence a loader.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The subset of Node's resolve-hook context these hooks pass through. */
type ResolveContext = { conditions?: string[]; importAttributes?: Record<string, string>; parentURL?: string };
type ResolveResult = { url: string; shortCircuit?: boolean; format?: string | null };
type NextResolve = (specifier: string, context: ResolveContext) => Promise<ResolveResult>;

/**
 * The SDK names an extension may import, and the bundled module each falls back to. An SDK the
 * extension installed itself (the official one, say) wins: the fallback is used only when normal
 * resolution finds nothing.
 */
const fallbacks: Record<string, string> = {
  "@tandem/sdk": "./index.js",
  "@tandem/sdk/extension": "./extension.js",
  "@github/copilot-sdk": "./index.js",
  "@github/copilot-sdk/extension": "./extension.js",
};

/** The official SDK's names, which the application's SDK folder (`extensionSdkPath`) answers when it has the module. */
const officialNames = new Set(["@github/copilot-sdk", "@github/copilot-sdk/extension"]);

/** The SDK folder the application chose for its extensions, given by `register.ts` (a loader thread's only state). */
let applicationSdkPath: string | undefined;

/** Node's `initialize` hook: receives the data `register.ts` passed. */
export function initialize(data: { sdkPath?: string } | undefined): void {
  applicationSdkPath = typeof data?.sdkPath === "string" && data.sdkPath.length > 0 ? data.sdkPath : undefined;
}

/**
 * Node's `resolve` hook: normal resolution first; then, for the official SDK's names, the SDK folder
 * the application chose (`extensionSdkPath`); then the bundled SDK.
 */
export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<ResolveResult> {
  const fallback = fallbacks[specifier];
  if (!fallback) return nextResolve(specifier, context);
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw error;
    const chosen = applicationSdkPath !== undefined && officialNames.has(specifier) ? join(applicationSdkPath, fallback) : undefined;
    if (chosen !== undefined && existsSync(chosen)) return { url: pathToFileURL(chosen).href, shortCircuit: true };
    return { url: new URL(fallback, import.meta.url).href, format: "module", shortCircuit: true };
  }
}
