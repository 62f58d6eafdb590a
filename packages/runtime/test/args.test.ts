import { describe, expect, it } from "vitest";
import { parseArgs, peerListenOf } from "../src/args.js";
import { peerListenFor } from "../src/cluster/cluster-node.js";

describe("parseArgs (node:util parseArgs underneath)", () => {
  it("reads what the official SDKs pass, with values as --flag value or --flag=value", () => {
    const args = parseArgs(["--headless", "--no-auto-update", "--log-level", "debug", "--port=4321", "--auth-token-env", "MY_TOKEN", "--no-auto-login", "--session-idle-timeout", "30", "--remote", "--server"]);
    expect(args).toMatchObject({ headless: true, logLevel: "debug", port: 4321, authTokenEnv: "MY_TOKEN", autoLogin: false, sessionIdleTimeoutSeconds: 30, remote: true, stdio: false });
    expect(parseArgs(["--stdio", "--sdk-protocol-version", "2", "--home", "/tmp/h", "-h", "-v"])).toMatchObject({ stdio: true, sdkProtocolVersion: 2, home: "/tmp/h", help: true, version: true });
  });

  it("reads --allow-all and its reference alias --yolo as trusting every working folder (off by default)", () => {
    expect(parseArgs([]).allowAll).toBe(false);
    expect(parseArgs(["--allow-all"]).allowAll).toBe(true);
    expect(parseArgs(["--yolo"]).allowAll).toBe(true);
  });

  it("lets the last of --exit-with-parent / --no-exit-with-parent win, and leaves it unset without either", () => {
    expect(parseArgs([]).exitWithParent).toBeUndefined();
    expect(parseArgs(["--exit-with-parent", "--no-exit-with-parent"]).exitWithParent).toBe(false);
    expect(parseArgs(["--no-exit-with-parent", "--exit-with-parent"]).exitWithParent).toBe(true);
  });

  it("names unknown flags and stray arguments", () => {
    expect(() => parseArgs(["--frobnicate"])).toThrow("unknown flag --frobnicate");
    expect(() => parseArgs(["--frobnicate=3"])).toThrow("unknown flag --frobnicate");
    expect(() => parseArgs(["-x"])).toThrow("unknown flag -x");
    expect(() => parseArgs(["--stdio", "oops"])).toThrow('unexpected argument "oops"');
  });

  it("says what a flag needs when its value is wrong or missing, without taking the next flag as its value", () => {
    expect(() => parseArgs(["--port", "--stdio"])).toThrow("--port needs a port number (0-65535)");
    expect(() => parseArgs(["--port", "70000"])).toThrow("--port needs a port number (0-65535)");
    expect(() => parseArgs(["--log-level", "loud"])).toThrow("--log-level must be one of");
    expect(() => parseArgs(["--sdk-protocol-version", "4"])).toThrow("--sdk-protocol-version must be 2 or 3");
    expect(() => parseArgs(["--session-idle-timeout", "-1"])).toThrow("--session-idle-timeout needs a whole number of seconds");
    expect(() => parseArgs(["--connection-token-env"])).toThrow("--connection-token-env needs an environment variable name");
    expect(() => parseArgs(["--host"])).toThrow("--host needs an address");
  });

  it("refuses --log-file, --auth-token-env and --home without a value (they were silently dropped)", () => {
    expect(() => parseArgs(["--log-file"])).toThrow("--log-file needs a path");
    expect(() => parseArgs(["--auth-token-env", "--stdio"])).toThrow("--auth-token-env needs an environment variable name");
    expect(() => parseArgs(["--home"])).toThrow("--home needs a folder");
  });
});

describe("--log-format", () => {
  it("is text by default, json on request, and refuses anything else", () => {
    expect(parseArgs([]).logFormat).toBe("text");
    expect(parseArgs(["--log-format", "json"]).logFormat).toBe("json");
    expect(() => parseArgs(["--log-format", "xml"])).toThrow("--log-format must be one of text, json");
  });

  it("reads --report-intent on|off, leaves it unset without it, and refuses anything else", () => {
    expect(parseArgs(["--report-intent", "on"]).reportIntent).toBe(true);
    expect(parseArgs(["--report-intent=off"]).reportIntent).toBe(false);
    expect(parseArgs([]).reportIntent).toBeUndefined();
    expect(() => parseArgs(["--report-intent", "yes"])).toThrow("--report-intent must be on or off");
    expect(() => parseArgs(["--report-intent"])).toThrow("--report-intent must be on or off");
  });

  it("reads a cluster node's --node-id and --health-port, and refuses bad ones", () => {
    expect(parseArgs(["--store", "postgres://db/t", "--node-id", "node-1", "--health-port", "8081"])).toMatchObject({ store: "postgres://db/t", nodeId: "node-1", healthPort: 8081 });
    expect(parseArgs([]).nodeId).toBeUndefined();
    expect(() => parseArgs(["--node-id", "has space"])).toThrow("--node-id needs a name");
    expect(() => parseArgs(["--node-id", "x".repeat(101)])).toThrow("--node-id needs a name");
    expect(() => parseArgs(["--health-port", "70000"])).toThrow("--health-port needs a port number");
    expect(() => parseArgs(["--health-port"])).toThrow("--health-port needs a port number");
  });

  it("reads --advertise-url as host:port (optionally tcp://, http://), and refuses one a client could not connect to", () => {
    expect(parseArgs([]).advertiseUrl).toBeUndefined();
    for (const url of ["10.0.0.7:4321", "node-1.internal:4321", "tcp://10.0.0.7:4321", "http://lb.internal:4331", "[fd00::7]:4321"]) {
      expect(parseArgs(["--advertise-url", url]).advertiseUrl).toBe(url);
    }
    for (const url of ["10.0.0.7", "10.0.0.7:0", "10.0.0.7:70000", "ws://10.0.0.7:4321", "10.0.0.7:4321/path", "has space:4321"]) {
      expect(() => parseArgs(["--advertise-url", url])).toThrow("--advertise-url needs host:port");
    }
  });

  it("reads --peer-listen as host:port (port 0: a free one) or off, and refuses anything else", () => {
    expect(parseArgs([]).peerListen).toBeUndefined();
    for (const value of ["10.0.0.7:7400", "0.0.0.0:0", "[fd00::7]:7400", "off"]) expect(parseArgs(["--peer-listen", value]).peerListen).toBe(value);
    expect(peerListenOf("[fd00::7]:7400")).toEqual({ host: "fd00::7", port: 7400 });
    expect(peerListenOf("off")).toBe("off");
    for (const value of ["10.0.0.7", "10.0.0.7:70000", "tcp://10.0.0.7:7400", "on", "has space:1"]) {
      expect(() => parseArgs(["--peer-listen", value])).toThrow("--peer-listen needs host:port");
    }
  });
});

describe("where a cluster node listens for peer links", () => {
  it("defaults to the advertised host (else 127.0.0.1) on a free port; a wildcard host is reached at the advertised host or the machine's name", () => {
    expect(peerListenFor(undefined, undefined, "box")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(peerListenFor(undefined, "tcp://10.0.0.7:4321", "box")).toEqual({ host: "10.0.0.7", port: 0 });
    expect(peerListenFor("0.0.0.0:7400", "10.0.0.7:4321", "box")).toEqual({ host: "0.0.0.0", port: 7400, reachAt: "10.0.0.7" });
    expect(peerListenFor("0.0.0.0:7400", undefined, "box")).toEqual({ host: "0.0.0.0", port: 7400, reachAt: "box" });
    expect(peerListenFor("off", "10.0.0.7:4321", "box")).toBe("off");
    expect(() => peerListenFor("nonsense", undefined, "box")).toThrow("TANDEM_CLUSTER_PEER_LISTEN must be host:port");
  });
});

describe("--store", () => {
  it("takes a postgres:// (or postgresql://) URL, is unset by default, and refuses anything else", () => {
    expect(parseArgs([]).store).toBeUndefined();
    expect(parseArgs(["--store", "postgres://me@db/tandem"]).store).toBe("postgres://me@db/tandem");
    expect(parseArgs(["--store=postgresql://me@db:5433/tandem?sslmode=require"]).store).toBe("postgresql://me@db:5433/tandem?sslmode=require");
    expect(() => parseArgs(["--store", "/var/lib/tandem"])).toThrow("--store needs a postgres:// URL");
    expect(() => parseArgs(["--store"])).toThrow("--store needs a postgres:// URL");
  });
});
