import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagEnvName, flagOrEnv } from "../../../node/src/cli/flag-env.js";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";

describe("start flags from the environment, named as Cosmos names them", () => {
  it("names a flag's variable after the app and the flag; the flag wins; an empty variable is unset", () => {
    expect(flagEnvName("chaind", "minimum-gas-prices")).toBe("CHAIND_MINIMUM_GAS_PRICES");
    expect(flagEnvName("my-app", "api.address")).toBe("MY_APP_API_ADDRESS");
    const env = { CHAIND_HALT_HEIGHT: "7", CHAIND_MINIMUM_GAS_PRICES: "" };
    expect(flagOrEnv(undefined, "chaind", "halt-height", env)).toBe("7");
    expect(flagOrEnv("9", "chaind", "halt-height", env)).toBe("9");
    expect(flagOrEnv(undefined, "chaind", "minimum-gas-prices", env)).toBeUndefined();
  });

  let dir: string;
  let home: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "start-env-"));
    home = join(dir, "node");
    expect((await chaind(["testnet", "--home", home, "--keys", "0", "--block-time", "100ms"])).exitCode).toBe(
      0,
    );
    await useFreeListenerPorts(home);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("CHAIND_HALT_HEIGHT stops the node as --halt-height does; a bad value is refused", async () => {
    const bad = await chaind(["start", "--home", home], { env: { CHAIND_HALT_HEIGHT: "soon" } });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.trim()).toBe(
      "Error: --halt-height (or CHAIND_HALT_HEIGHT) must be a non-negative integer, got soon",
    );
    const node = new NodeProcess(home, [], { CHAIND_HALT_HEIGHT: "3" });
    const exit = await node.proc;
    expect(exit.exitCode).toBe(0);
    expect(node.lines.some((l) => /halt height 3 reached/.test(l))).toBe(true);
    expect(Math.max(...node.committed().keys())).toBe(3);
  });

  it("--unsafe-skip-upgrades takes a comma list as Cosmos's int-slice flag does, and names a bad entry", async () => {
    const bad = await chaind(["start", "--home", home, "--unsafe-skip-upgrades", "10,soon"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.trim()).toBe(
      "Error: cannot start node: --unsafe-skip-upgrades: heights must be positive integers, got soon",
    );
    const zero = await chaind([
      "start",
      "--home",
      home,
      "--unsafe-skip-upgrades",
      "0",
      "--unsafe-skip-upgrades",
      "5",
    ]);
    expect(zero.stderr.trim()).toBe(
      "Error: cannot start node: --unsafe-skip-upgrades: heights must be positive integers, got 0",
    );
  });
});
