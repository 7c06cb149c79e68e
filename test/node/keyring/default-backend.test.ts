import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deriveSecp256k1Key } from "../../../node/src/crypto/hd-wallet.js";
import { chaind } from "../helpers/chaind-process.js";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const PRIV_HEX = Buffer.from(deriveSecp256k1Key(ABANDON)).toString("hex");

describe("the keyring backend a home gets", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "keyring-default-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("an init home uses the encrypted file backend: a key added without flags is not on disk in clear", async () => {
    const home = join(dir, "node");
    expect((await chaind(["init", "n0", "--chain-id", "keys-1", "--home", home])).exitCode).toBe(0);
    expect(readFileSync(join(home, "config", "client.toml"), "utf8")).toMatch(/^keyring-backend = "file"$/m);

    const add = await chaind(["keys", "add", "alice", "--recover", "--home", home], {
      input: `${ABANDON}\nsecret passphrase\nsecret passphrase\n`,
    });
    expect(add.exitCode, add.stderr).toBe(0);
    expect(readdirSync(home)).not.toContain("keyring-test");
    for (const f of readdirSync(join(home, "keyring-file"))) {
      const text = readFileSync(join(home, "keyring-file", f), "utf8");
      expect(text).not.toContain(PRIV_HEX);
      expect(text).not.toContain(Buffer.from(PRIV_HEX, "hex").toString("base64"));
    }
    // Using the key needs the passphrase; reading its address does not.
    const shown = await chaind(["keys", "show", "alice", "-a", "--home", home]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const deleted = await chaind(["keys", "delete", "alice", "-y", "--home", home], { input: "wrong one\n" });
    expect(deleted.exitCode).toBe(1);
    expect(deleted.stderr).toMatch(/invalid account password/);
  });

  it("a testnet home keeps the test backend and says so when it is made", async () => {
    const home = join(dir, "testnet");
    const made = await chaind(["testnet", "--home", home, "--keys", "1"]);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.stderr).toContain(
      `keyring-backend "test": the keys of this home are stored unencrypted in ${join(home, "keyring-test")}, for testing only`,
    );
    JSON.parse(made.stdout);
    expect(readFileSync(join(home, "config", "client.toml"), "utf8")).toMatch(/^keyring-backend = "test"$/m);
    const list = await chaind(["keys", "list", "-n", "--home", home]);
    expect(list.stdout).toBe("alice\nvalidator");
    expect(JSON.parse(readFileSync(join(home, "keyring-test", "alice.info"), "utf8")).privkey).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });
});
