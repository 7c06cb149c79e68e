import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openKeyring } from "../../../node/src/client/keyring/open-keyring.js";
import { deriveSecp256k1Key } from "../../../node/src/crypto/hd-wallet.js";
import { verifySecp256k1 } from "../../../node/src/crypto/secp256k1.js";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const PASS = "correct horse battery";

describe("file keyring backend", () => {
  let home: string;
  const dir = () => join(home, "keyring-file");

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "keyring-file-"));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("encrypts keys: 0600 files, no private key in clear, scrypt params stored", async () => {
    const ring = openKeyring({ backend: "file", home, prefix: "cosmos", passphrase: PASS });
    const { info } = await ring.add("alice", { mnemonic: ABANDON });
    expect(info.address).toBe("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4");
    expect(statSync(dir()).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir()).sort()).toEqual([
      "28ff5c6d57d8cfd492b6fb42614536ed648e01fd.address",
      "alice.info",
      "keyhash",
    ]);
    for (const f of readdirSync(dir())) expect(statSync(join(dir(), f)).mode & 0o777).toBe(0o600);

    const text = readFileSync(join(dir(), "alice.info"), "utf8");
    const privHex = Buffer.from(deriveSecp256k1Key(ABANDON)).toString("hex");
    expect(text).not.toContain(privHex);
    expect(text).not.toContain(Buffer.from(privHex, "hex").toString("base64"));
    const record = JSON.parse(text);
    expect(record.privkey).toBeUndefined();
    expect(record.crypto).toMatchObject({
      cipher: "aes-256-gcm",
      kdf: "scrypt",
      kdfparams: { n: 32768, r: 8, p: 1, dklen: 32 },
    });
    expect(JSON.parse(readFileSync(join(dir(), "keyhash"), "utf8"))).toMatchObject({
      version: 1,
      kdf: "scrypt",
    });

    const signer = await ring.signer("alice");
    const msg = new TextEncoder().encode("sign me");
    expect(verifySecp256k1(signer.pubKey, msg, signer.sign(msg))).toBe(true);
  });

  it("checks the passphrase against the first one set", async () => {
    await openKeyring({ backend: "file", home, prefix: "sdk", passphrase: PASS }).add("alice");
    const wrong = openKeyring({ backend: "file", home, prefix: "sdk", passphrase: "wrong passphrase" });
    await expect(wrong.signer("alice")).rejects.toThrow("invalid account password");
    await expect(wrong.add("bob")).rejects.toThrow("invalid account password");
    await expect(wrong.delete("alice")).rejects.toThrow("invalid account password");
    // Reading public info needs no passphrase.
    const none = openKeyring({ backend: "file", home, prefix: "sdk" });
    expect((await none.list()).map((k) => k.name)).toEqual(["alice"]);
    await expect(none.signer("alice")).rejects.toThrow(/needs a passphrase/);

    const right = openKeyring({ backend: "file", home, prefix: "sdk", passphrase: PASS });
    await right.add("bob");
    await right.delete("alice");
    expect((await right.list()).map((k) => k.name)).toEqual(["bob"]);
  });

  it("a key file opened with another passphrase fails with invalid account password", async () => {
    await openKeyring({ backend: "file", home, prefix: "sdk", passphrase: PASS }).add("alice");
    // Someone replaces the passphrase hash: decrypting the key itself still fails.
    rmSync(join(dir(), "keyhash"));
    const other = openKeyring({ backend: "file", home, prefix: "sdk", passphrase: "another passphrase" });
    await expect(other.signer("alice")).rejects.toThrow("invalid account password");
  });

  it("asks a prompt lazily, twice-confirm flag on first use, three attempts after", async () => {
    const asked: boolean[] = [];
    const answers = [PASS];
    const ring = openKeyring({
      backend: "file",
      home,
      prefix: "sdk",
      passphrase: async ({ isNew }) => {
        asked.push(isNew);
        return answers.shift() ?? "";
      },
    });
    expect(await ring.list()).toEqual([]);
    expect(asked).toEqual([]);
    await ring.add("alice");
    await ring.add("bob");
    expect(asked).toEqual([true]);

    const tries: string[] = ["nope1234", "nope5678", PASS];
    const again = openKeyring({
      backend: "file",
      home,
      prefix: "sdk",
      passphrase: async () => tries.shift()!,
    });
    await again.signer("alice");
    expect(tries).toEqual([]);
    const never = openKeyring({
      backend: "file",
      home,
      prefix: "sdk",
      passphrase: async () => "always wrong",
    });
    await expect(never.signer("alice")).rejects.toThrow("invalid account password");
  });

  it("refuses a short new passphrase", async () => {
    const ring = openKeyring({ backend: "file", home, prefix: "sdk", passphrase: "short" });
    await expect(ring.add("alice")).rejects.toThrow("passphrase must be at least 8 characters");
  });
});
