// Preloaded into every extension process (`node --import <this file>`): installs the resolve hooks
// that make the SDK importable without installing it. Built to `bundle/extension-sdk/register.js`.
import { register } from "node:module";

register("./hooks.js", import.meta.url);
