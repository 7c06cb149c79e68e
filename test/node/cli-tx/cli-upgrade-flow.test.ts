import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnPickedPorts, useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";

describe("chaind CLI against a running node: sends, queries and an upgrade proposal to the halt", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let keys: { name: string; address: string }[];
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cli-flow-"));
    home = join(dir, "home");
    const made = await chaind([
      "testnet",
      "--home",
      home,
      "--chain-id",
      "cli-1",
      "--block-time",
      "200ms",
      "--voting-period",
      "10s",
      "--deposit-period",
      "10s",
      "--min-deposit",
      "1000stake",
    ]);
    expect(made.exitCode, made.stderr).toBe(0);
    keys = JSON.parse(made.stdout).keys;
    listenOnPickedPorts(home);
    node = new NodeProcess(home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2 /);
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends with --gas auto (printing the estimate), waits for inclusion, and shows the new balance", async () => {
    const bob = keys.find((k) => k.name === "bob")!.address;
    // --dry-run: the estimate only, nothing signed or sent.
    const dry = await cli("tx", "bank", "send", "alice", bob, "1stake", "--dry-run", "--fees", "5000stake");
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toBe("");
    const estimate = Number(dry.stderr.match(/^gas estimate: (\d+)$/m)?.[1]);
    expect(estimate).toBeGreaterThan(0);
    const sent = await cli(
      "tx",
      "bank",
      "send",
      "alice",
      bob,
      "12345stake",
      "--gas",
      "auto",
      "--fees",
      "5000stake",
      "--wait",
      "-o",
      "json",
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const sentEstimate = sent.stderr.match(/^gas estimate: (\d+)$/m)?.[1];
    const result = JSON.parse(sent.stdout);
    // The SDK's TxResponse, every field.
    expect(Object.keys(result)).toEqual([
      "height",
      "txhash",
      "codespace",
      "code",
      "data",
      "raw_log",
      "logs",
      "info",
      "gas_wanted",
      "gas_used",
      "tx",
      "timestamp",
      "events",
    ]);
    expect(result.code).toBe(0);
    expect(Number(result.height)).toBeGreaterThan(0);
    expect(Number(result.gas_used)).toBeGreaterThan(0);
    expect(result.gas_wanted).toBe(sentEstimate);
    expect(Date.parse(result.timestamp)).toBeGreaterThan(Date.parse("2026-01-01"));
    // Only the real send arrived: the dry run sent nothing.
    const balances = await cli("query", "bank", "balances", bob, "-o", "json");
    expect(JSON.parse(balances.stdout).balances).toEqual([{ denom: "stake", amount: "1000000012345" }]);
    const found = await cli("query", "tx", result.txhash, "-o", "json");
    expect(JSON.parse(found.stdout).height).toBe(result.height);
  });

  it("generates, signs (online and offline) and broadcasts as separate steps; encode and decode round-trip", async () => {
    const carol = keys.find((k) => k.name === "carol")!.address;
    const unsigned = join(dir, "unsigned.json");
    const gen = await cli(
      "tx",
      "bank",
      "send",
      "bob",
      carol,
      "7stake",
      "--generate-only",
      "--fees",
      "3000stake",
    );
    expect(gen.exitCode, gen.stderr).toBe(0);
    const doc = JSON.parse(gen.stdout);
    // The Cosmos shape, with cosmos.* type URLs, so Cosmos tooling can sign and broadcast it too.
    expect(doc.body.messages[0]["@type"]).toBe("/cosmos.bank.v1beta1.MsgSend");
    expect(doc.auth_info.tip).toBeNull();
    expect(doc.auth_info.fee).toMatchObject({
      amount: [{ denom: "stake", amount: "3000" }],
      gas_limit: "200000",
    });
    expect(doc.signatures).toEqual([]);
    writeFileSync(unsigned, gen.stdout);

    const account = JSON.parse(
      (await cli("query", "auth", "account", keys.find((k) => k.name === "bob")!.address, "-o", "json"))
        .stdout,
    ).account;
    const offline = join(dir, "offline.json");
    const signedOffline = await chaind([
      "tx",
      "sign",
      unsigned,
      "--from",
      "bob",
      "--offline",
      "-a",
      account.account_number,
      "-s",
      account.sequence,
      "--chain-id",
      "cli-1",
      "--output-document",
      offline,
      "--home",
      home,
    ]);
    expect(signedOffline.exitCode, signedOffline.stderr).toBe(0);
    const online = await cli("tx", "sign", unsigned, "--from", "bob");
    expect(online.exitCode, online.stderr).toBe(0);
    expect(JSON.parse(online.stdout).signatures).toEqual(
      JSON.parse(readFileSync(offline, "utf8")).signatures,
    );

    const encoded = (await cli("tx", "encode", offline)).stdout.trim();
    const decodedRun = await cli("tx", "decode", encoded);
    expect(decodedRun.exitCode, decodedRun.stderr + encoded).toBe(0);
    const decoded = JSON.parse(decodedRun.stdout);
    expect(decoded.signatures).toEqual(JSON.parse(readFileSync(offline, "utf8")).signatures);
    const sim = JSON.parse((await cli("tx", "simulate", offline, "-o", "json")).stdout);
    expect(Number(sim.gas_info.gas_used)).toBeGreaterThan(0);

    // --wait: the TxResponse as the block committed it.
    const sent = await cli("tx", "broadcast", offline, "--wait", "-o", "json");
    expect(sent.exitCode, sent.stderr).toBe(0);
    const committed = JSON.parse(sent.stdout);
    expect(Number(committed.height)).toBeGreaterThan(0);
    expect(Number(committed.gas_used)).toBeGreaterThan(0);
    const found = await cli("query", "tx", committed.txhash, "-o", "json");
    expect(JSON.parse(found.stdout)).toMatchObject({ code: 0, height: committed.height });
    const again = await cli("tx", "broadcast", offline);
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr.trim()).toMatch(
      /^Error: transaction .* rejected \(code 32, sdk\): account sequence mismatch/,
    );
  });

  it("prints one clear line and exits non-zero for each mistake", async () => {
    const bob = keys.find((k) => k.name === "bob")!.address;
    const proposeUpgrade = (info: string) => [
      ...["tx", "upgrade", "software-upgrade", "v9", "--title", "t", "--summary", "s", "--from", "validator"],
      ...["--upgrade-height", "100", "--upgrade-info", info],
    ];
    const cases: [string[], RegExp][] = [
      [["tx", "bank", "send", "alice", bob, "12x"], /^Error: invalid decimal coin expression: 12x$/],
      [["tx", "bank", "send", "nobody", bob, "1stake"], /^Error: .*nobody/],
      [
        ["tx", "bank", "send", "alice", "sdk1notanaddress", "1stake", "--wait"],
        /^Error: invalid address: decoding bech32 failed: /,
      ],
      [["tx", "gov", "vote", "1", "maybe", "--from", "validator"], /^Error: invalid vote option "maybe"/],
      [["query", "gov", "proposal", "999"], /^Error: .*proposal 999 doesn't exist/],
      [
        proposeUpgrade('{"binaries":{"linux/amd64":"http://127.0.0.1:1/x"}}'),
        /^Error: --upgrade-info: binaries.linux\/amd64: missing checksum/,
      ],
      [
        proposeUpgrade(`ftp://127.0.0.1/plan.json?checksum=sha256:${"a".repeat(64)}`),
        /^Error: --upgrade-info: unsupported URL scheme ftp: in ftp:\/\/127.0.0.1\/plan.json/,
      ],
    ];
    // Each mistake is a CLI process of its own and none changes what another sees: they run at once.
    const [down, ...results] = await Promise.all([
      chaind(["query", "bank", "balances", bob, "--home", home, "--node", "tcp://127.0.0.1:1"]),
      ...cases.map(([args]) => cli(...args)),
    ]);
    for (const [i, [args, re]] of cases.entries()) {
      const r = results[i];
      expect(r.exitCode, args.join(" ")).not.toBe(0);
      expect(r.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(r.stderr.trim(), args.join(" ")).toMatch(re);
    }
    expect(down.exitCode).not.toBe(0);
    expect(down.stderr.trim()).toMatch(/^Error: cannot reach node at http:\/\/127\.0\.0\.1:1/);
  });

  it("a testnet home asks its small minimum gas price: a fee under it is refused in CheckTx, one at it passes", async () => {
    const bob = keys.find((k) => k.name === "bob")!.address;
    expect(readFileSync(join(home, "config", "app.toml"), "utf8")).toMatch(
      /^minimum-gas-prices = "0\.0001stake"$/m,
    );
    // 0.0001stake x 200000 gas (the default limit) = 20stake.
    const free = await cli("tx", "bank", "send", "carol", bob, "1stake");
    expect(free.exitCode).not.toBe(0);
    expect(free.stderr.trim()).toMatch(
      /^Error: transaction .* rejected \(code 13, sdk\): insufficient fees; got: {2}required: 20stake/,
    );
    const short = await cli("tx", "bank", "send", "carol", bob, "1stake", "--fees", "19stake");
    expect(short.stderr.trim()).toMatch(/insufficient fees; got: 19stake required: 20stake/);
    const enough = await cli("tx", "bank", "send", "carol", bob, "1stake", "--fees", "20stake", "--wait");
    expect(enough.exitCode, enough.stderr).toBe(0);
    const priced = await cli(
      "tx",
      "bank",
      "send",
      "carol",
      bob,
      "1stake",
      "--gas-prices",
      "0.0001stake",
      "--wait",
    );
    expect(priced.exitCode, priced.stderr).toBe(0);
  });

  it("signs from an encrypted (file) key with the passphrase from piped stdin; --generate-only needs none", async () => {
    const file = ["--keyring-backend", "file"];
    const pass = "flow passphrase\n";
    const added = await chaind(["keys", "add", "erin", ...file, "--home", home, "-o", "json"], {
      input: pass.repeat(2),
    });
    expect(added.exitCode, added.stderr).toBe(0);
    const erin = JSON.parse(added.stdout).address as string;
    const funded = await cli(
      "tx",
      "bank",
      "send",
      "alice",
      erin,
      "100000stake",
      "--fees",
      "20stake",
      "--wait",
    );
    expect(funded.exitCode, funded.stderr).toBe(0);
    const bob = keys.find((k) => k.name === "bob")!.address;
    const send = (input: string, ...extra: string[]) =>
      chaind(
        ["tx", "bank", "send", "erin", bob, "5stake", ...file, ...extra, "--home", home, "--node", rpc],
        {
          input,
        },
      );
    const unsigned = await send("", "--generate-only", "--fees", "20stake");
    expect(unsigned.exitCode, unsigned.stderr).toBe(0);
    expect(JSON.parse(unsigned.stdout).signatures).toEqual([]);
    const wrong = await send("not the passphrase\n", "--fees", "20stake");
    expect(wrong.exitCode).toBe(1);
    // The prompts go to stderr, then the one error line.
    expect(wrong.stderr).toMatch(/^Enter keyring passphrase:/);
    expect(wrong.stderr.trim().split("\n").at(-1)).toBe("Error: invalid account password");
    const sent = await send(pass, "--fees", "20stake", "--wait");
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(JSON.parse((await cli("query", "bank", "balances", erin, "-o", "json")).stdout).balances).toEqual([
      { denom: "stake", amount: String(100000 - 5 - 20) },
    ]);
  });

  it("schedules an upgrade by proposal and vote; the node halts at the height with upgrade-info.json and exit code 3", async () => {
    const status = JSON.parse((await cli("status")).stdout);
    // 125 blocks of 200 ms: room for the proposal to pass (three CLI runs and 10 s of voting) and the four queries
    // after it (run at once) on a loaded machine before the node halts.
    const height = Number(status.sync_info.latest_block_height) + 125;
    const info = JSON.stringify({
      binaries: { "linux/amd64": `http://127.0.0.1:1/c.tar.gz?checksum=sha256:${"a".repeat(64)}` },
    });
    const submitted = await cli(
      "tx",
      "upgrade",
      "software-upgrade",
      "v2",
      "--title",
      "Upgrade to v2",
      "--summary",
      "test",
      "--deposit",
      "1000stake",
      "--upgrade-height",
      String(height),
      "--upgrade-info",
      info,
      "--from",
      "validator",
      "--gas-prices",
      "0.0001stake",
      "--wait",
      "-o",
      "json",
    );
    expect(submitted.exitCode, submitted.stderr).toBe(0);
    expect(submitted.stderr).toContain("warning: upgrade height");
    const proposals = JSON.parse((await cli("query", "gov", "proposals", "-o", "json")).stdout).proposals;
    const id = proposals.at(-1).id;
    expect(proposals.at(-1).status).toBe("PROPOSAL_STATUS_VOTING_PERIOD");
    const voted = await cli(
      "tx",
      "gov",
      "vote",
      id,
      "yes",
      "--from",
      "validator",
      "--fees",
      "20stake",
      "--wait",
    );
    expect(voted.exitCode, voted.stderr).toBe(0);
    const tallied = (await node.waitFor(/proposal tallied .*result=proposal_passed.*/, 20_000))[0];
    // Issue 32: the tally logs as plain counts; no log line through the proposal's life carries a message object.
    expect(tallied).toMatch(/ yes=[1-9]\d* abstain=0 no=0 no_with_veto=0\b/);
    expect(node.lines.filter((l) => l.includes("$typeName"))).toEqual([]);
    const api = (await node.waitFor(/\bapi listening address=(\S+)/))[1];
    const [planJson, planText, rest, versionsRun, unknown] = await Promise.all([
      cli("query", "upgrade", "plan", "-o", "json"),
      cli("query", "upgrade", "plan", "-o", "text"),
      fetch(`${api}/cosmos/upgrade/v1beta1/current_plan`).then((r) => r.text()),
      cli("query", "upgrade", "module_versions", "gov", "-o", "json"),
      cli("query", "upgrade", "module_versions", "nope"),
    ]);
    // Spec 2.1, exactly: time as Go's zero time and upgraded_client_state null; text is Cosmos' YAML (sorted
    // keys, the int64 quoted).
    expect(planJson.stdout).toBe(
      `${JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: String(height), info, upgraded_client_state: null })}`,
    );
    expect(planText.stdout).toBe(
      `height: "${height}"\ninfo: '${info}'\nname: v2\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null`,
    );
    expect(rest).toBe(
      JSON.stringify({
        plan: {
          name: "v2",
          time: "0001-01-01T00:00:00Z",
          height: String(height),
          info,
          upgraded_client_state: null,
        },
      }),
    );
    expect(JSON.parse(versionsRun.stdout).module_versions).toEqual([{ name: "gov", version: "5" }]);
    expect(unknown.stderr.trim()).toMatch(/^Error: .*module nope not found/);

    await node.waitFor(new RegExp(`UPGRADE "v2" NEEDED at height: ${height}`), 45_000);
    const exit = await node.proc;
    expect(exit.exitCode).toBe(3);
    expect(JSON.parse(readFileSync(join(home, "data", "upgrade-info.json"), "utf8"))).toEqual({
      name: "v2",
      time: "0001-01-01T00:00:00Z",
      height,
      info,
    });
  }, 120_000);
});

describe("chaind pre-upgrade", () => {
  it("exits 0 on a usable home, 31 while another process holds the database, 30 when the home is unusable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pre-upgrade-"));
    const home = join(dir, "home");
    try {
      expect((await chaind(["testnet", "--home", home, "--keys", "0"])).exitCode).toBe(0);
      await useFreeListenerPorts(home);
      const ok = await chaind(["pre-upgrade", "--home", home]);
      expect(ok.exitCode, ok.stderr).toBe(0);
      const running = new NodeProcess(home);
      await running.waitFor(/committed block/);
      const busy = await chaind(["pre-upgrade", "--home", home]);
      expect(busy.exitCode).toBe(31);
      expect(busy.stderr).toMatch(/locked by another process.*retry later/);
      running.proc.kill("SIGTERM");
      await running.proc;
      const broken = await chaind(["pre-upgrade", "--home", join(dir, "missing")]);
      expect(broken.exitCode).toBe(30);
      expect(broken.stderr.trim().split("\n")).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
