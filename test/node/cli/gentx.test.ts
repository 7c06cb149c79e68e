import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { QueryValidatorsResponseSchema } from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import { BondStatus } from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";

describe("genesis gentx and collect-gentxs", () => {
  let dir: string;
  let home: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gentx-"));
    home = join(dir, "node");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("turns a funded key into a bonded validator at genesis, and the chain starts from it", async () => {
    // The home's keyring is init's default, the encrypted file backend: the passphrase comes from stdin.
    const run = async (args: string[], input = "") => {
      const r = await chaind([...args, "--home", home], { input });
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      return r;
    };
    const passphrase = "gentx passphrase\n";
    await run(["init", "node0", "--chain-id", "gentx-1"]);
    const added = await run(["keys", "add", "val", "--output", "json"], passphrase.repeat(2));
    const address = JSON.parse(added.stdout).address as string;
    await run(["genesis", "add-genesis-account", "val", "1000000000stake"]);
    const early = await chaind(["genesis", "gentx", "nobody", "1stake", "--home", home], {
      input: passphrase,
    });
    expect(early.exitCode).not.toBe(0);
    const noPassphrase = await chaind(["genesis", "gentx", "val", "1stake", "--home", home], { input: "" });
    expect(noPassphrase.stderr).toMatch(/no keyring passphrase given/);
    await run(["genesis", "gentx", "val", "400000000stake", "--moniker", "node0"], passphrase);
    await run(["genesis", "collect-gentxs"]);
    await run(["genesis", "validate"]);

    await useFreeListenerPorts(home);
    const node = new NodeProcess(home);
    try {
      const rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
      await node.waitFor(/committed block .*height=2 /);
      const balances = JSON.parse(
        (await chaind(["query", "bank", "balances", address, "--home", home, "--node", rpc, "-o", "json"]))
          .stdout,
      );
      expect(balances.balances).toEqual([{ denom: "stake", amount: "600000000" }]);
      const res = await fetch(rpc, {
        method: "POST",
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "abci_query",
          params: { path: "/sdk.staking.v1beta1.Query/Validators", data: "" },
        }),
      });
      const value = ((await res.json()) as { result: { response: { value: string } } }).result.response.value;
      const { validators } = fromBinary(QueryValidatorsResponseSchema, Buffer.from(value, "base64"));
      expect(validators).toHaveLength(1);
      expect(validators[0]).toMatchObject({ tokens: "400000000", status: BondStatus.BONDED });
      expect(validators[0].description?.moniker).toBe("node0");
    } finally {
      node.proc.kill("SIGTERM");
      await node.proc;
    }
  });
});
