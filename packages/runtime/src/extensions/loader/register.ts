// Preloaded into every extension process (`node --import <this file>`): installs the resolve hooks
// that make the SDK importable without installing it. Built to `bundle/extension-sdk/register.js`.
// The SDK folder the application chose (`TANDEM_EXTENSION_SDK_PATH`) goes to the hooks as data.
import { register } from "node:module";

register("./hooks.js", import.meta.url, { data: { sdkPath: process.env.TANDEM_EXTENSION_SDK_PATH } });
