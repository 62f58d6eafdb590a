/** The sandbox proxy's host rules and the policy a session's sandbox config becomes. */
import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { decideHost, hostMatches, isLocalAddress } from "../../src/sandbox/host-rules.js";
import { parseSandboxSetting, resolveSandboxPolicy } from "../../src/sandbox/policy.js";

const network = (extra: Partial<Parameters<typeof decideHost>[2]> = {}) => ({ allowOutbound: false, allowLocalNetwork: false, allowedHosts: [], blockedHosts: [], ...extra });

describe("sandbox host rules", () => {
  it("matches exact names and *.domain subdomains only", () => {
    expect(hostMatches("api.github.com", ["*.github.com"])).toBe(true);
    expect(hostMatches("github.com", ["*.github.com"])).toBe(false);
    expect(hostMatches("evilgithub.com", ["*.github.com"])).toBe(false);
    expect(hostMatches("github.com", ["github.com"])).toBe(true);
  });

  it("knows local and private addresses, IPv4-mapped ones included", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1", "::ffff:127.0.0.1", "fd00::1", "fe80::1"]) expect(isLocalAddress(address)).toBe(true);
    for (const address of ["140.82.112.3", "172.32.0.1", "8.8.8.8", "2606:4700::1111"]) expect(isLocalAddress(address)).toBe(false);
  });

  it("allows listed hosts, refuses the rest, blocked hosts always, and local addresses of public names", () => {
    expect(decideHost("registry.npmjs.org", ["104.16.0.1"], network({ allowedHosts: ["registry.npmjs.org"] })).allowed).toBe(true);
    expect(decideHost("example.com", ["93.184.216.34"], network({ allowedHosts: ["registry.npmjs.org"] }))).toEqual({ allowed: false, reason: "example.com is not on the sandbox's allowedHosts" });
    expect(decideHost("example.com", ["93.184.216.34"], network({ allowOutbound: true })).allowed).toBe(true);
    expect(decideHost("bad.example.com", ["93.184.216.34"], network({ allowOutbound: true, blockedHosts: ["*.example.com"] })).allowed).toBe(false);
    // A public name that resolves to this machine does not reach its services.
    expect(decideHost("rebind.example.com", ["127.0.0.1"], network({ allowedHosts: ["rebind.example.com"] })).allowed).toBe(false);
    expect(decideHost("rebind.example.com", ["127.0.0.1"], network({ allowedHosts: ["rebind.example.com"], allowLocalNetwork: true })).allowed).toBe(true);
    expect(decideHost("metadata", ["169.254.169.254"], network({ allowOutbound: true })).allowed).toBe(false);
    // An allowed entry that names this machine is the user's explicit choice.
    expect(decideHost("dev.localhost", ["127.0.0.1"], network({ allowedHosts: ["*.localhost"] })).allowed).toBe(true);
  });
});

describe("sandbox policy", () => {
  it("makes the working directory writable unless told not to, and resolves ~ and relative paths", () => {
    const policy = resolveSandboxPolicy({ enabled: true, userPolicy: { filesystem: { readwritePaths: ["out"], deniedPaths: ["~/.ssh"] } } }, undefined, "/work");
    expect(policy).toMatchObject({ enabled: true, allowBypass: false, sandboxMcpServers: true, readwritePaths: ["/work", "/work/out"], deniedPaths: [`${homedir()}/.ssh`] });
    expect(resolveSandboxPolicy({ enabled: true, addCurrentWorkingDirectory: false }, undefined, "/work").readwritePaths).toEqual([]);
  });

  it("takes the session's config over the runtime's default, and is off without either", () => {
    expect(resolveSandboxPolicy(undefined, { enabled: true }, "/work").enabled).toBe(true);
    expect(resolveSandboxPolicy({ enabled: false }, { enabled: true }, "/work").enabled).toBe(false);
    expect(resolveSandboxPolicy(undefined, undefined, "/work").enabled).toBe(false);
  });

  it("reads --sandbox / TANDEM_SANDBOX as on, off or JSON, and says what is wrong otherwise", () => {
    const parse = (value: unknown) => value as { enabled: boolean };
    expect(parseSandboxSetting("on", parse)).toEqual({ enabled: true });
    expect(parseSandboxSetting("off", parse)).toEqual({ enabled: false });
    expect(parseSandboxSetting('{"enabled":true,"allowBypass":true}', parse)).toEqual({ enabled: true, allowBypass: true });
    expect(() => parseSandboxSetting("maybe", parse)).toThrow("--sandbox / TANDEM_SANDBOX must be on, off or a SandboxConfig as JSON");
  });
});

describe("sandbox settings of the runtime", () => {
  it("names the wrong field of a SandboxConfig given as JSON", async () => {
    const { SandboxConfig } = await import("@tandem/protocol");
    expect(() => parseSandboxSetting('{"enabled":"yes"}', (value) => SandboxConfig.parse(value))).toThrow(
      "--sandbox / TANDEM_SANDBOX is not a valid SandboxConfig (enabled: Invalid input: expected boolean, received string)",
    );
  });
});
