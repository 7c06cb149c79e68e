import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pubKeyJson } from "../../../node/src/client/keyring/key-output.js";
import type { Keyring } from "../../../node/src/client/keyring/keyring.js";
import { KeyringError } from "../../../node/src/client/keyring/keyring-error.js";
import { openKeyring } from "../../../node/src/client/keyring/open-keyring.js";
import { verifySecp256k1 } from "../../../node/src/crypto/secp256k1.js";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof KeyringError) return e.code;
    throw e;
  }
  return "OK";
}

describe("test keyring backend", () => {
  let home: string;
  let ring: Keyring;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "keyring-test-"));
    ring = openKeyring({ backend: "test", home, prefix: "cosmos" });
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("recovers the known vector and finds it by name and address", async () => {
    const { info, mnemonic } = await ring.add("alice", { mnemonic: ` ${ABANDON} ` });
    expect(mnemonic).toBe(ABANDON);
    expect(info).toMatchObject({
      name: "alice",
      type: "local",
      address: "cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4",
    });
    expect(info.pubKey).toHaveLength(33);
    expect(await ring.get("alice")).toEqual(info);
    expect(await ring.get(info.address)).toEqual(info);
    expect(await ring.exists("alice")).toBe(true);
    expect(await ring.exists(info.address)).toBe(true);
    expect(await ring.exists("bob")).toBe(false);
    expect(pubKeyJson(info.pubKey)).toEqual({
      "@type": "/sdk.crypto.secp256k1.PubKey",
      key: Buffer.from(info.pubKey).toString("base64"),
    });
  });

  it("adds new keys, lists them sorted, signs, deletes", async () => {
    const bob = await ring.add("bob");
    expect(bob.mnemonic.split(" ")).toHaveLength(24);
    const alice = await ring.add("alice", { mnemonic: ABANDON, index: 1 });
    expect(alice.info.address).not.toBe("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4");
    expect((await ring.list()).map((k) => k.name)).toEqual(["alice", "bob"]);

    const signer = await ring.signer("bob");
    expect(signer.address).toBe(bob.info.address);
    const msg = new TextEncoder().encode("hello");
    expect(verifySecp256k1(signer.pubKey, msg, signer.sign(msg))).toBe(true);

    await ring.delete(bob.info.address);
    expect(await ring.exists("bob")).toBe(false);
    expect(await ring.exists(bob.info.address)).toBe(false);
    expect(await codeOf(ring.get("bob"))).toBe("KEY_NOT_FOUND");
    expect(await codeOf(ring.delete("bob"))).toBe("KEY_NOT_FOUND");
    expect((await ring.list()).map((k) => k.name)).toEqual(["alice"]);
    // The name is free again.
    await ring.add("bob", { mnemonic: bob.mnemonic });
    expect((await ring.get("bob")).address).toBe(bob.info.address);
  });

  it("stores keys 0600 in a 0700 folder, with an address index", async () => {
    const { info } = await ring.add("alice", { mnemonic: ABANDON });
    const dir = join(home, "keyring-test");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir).sort();
    expect(files).toEqual(["28ff5c6d57d8cfd492b6fb42614536ed648e01fd.address", "alice.info"]);
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(join(dir, "alice.info"), "utf8"));
    expect(record).toMatchObject({
      version: 1,
      name: "alice",
      algo: "secp256k1",
      hd_path: "m/44'/118'/0'/0/0",
    });
    expect(record.privkey).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(record.pubkey, "base64")).toEqual(Buffer.from(info.pubKey));
  });

  it("refuses taken names, duplicate addresses, bad names and bad mnemonics", async () => {
    await ring.add("alice", { mnemonic: ABANDON });
    expect(await codeOf(ring.add("alice"))).toBe("KEY_EXISTS");
    await expect(ring.add("alice2", { mnemonic: ABANDON })).rejects.toThrow(
      /already in the keyring as "alice"/,
    );
    for (const bad of ["", ".", "..", "a/b", "..\\x", "x\ny", " lead", "x".repeat(101)]) {
      expect(await codeOf(ring.add(bad)), JSON.stringify(bad)).toBe("INVALID_NAME");
    }
    expect(await codeOf(ring.get("../alice"))).toBe("INVALID_NAME");
    await expect(ring.add("carol", { mnemonic: "abandon abandon" })).rejects.toThrow("invalid mnemonic");
    expect(await codeOf(ring.add("carol", { mnemonic: ABANDON, index: -1 }))).toBe("INVALID_MNEMONIC");
  });

  it("address lookups use the keyring's prefix", async () => {
    const { info } = await ring.add("alice", { mnemonic: ABANDON });
    const sdkRing = openKeyring({ backend: "test", home, prefix: "sdk" });
    const sdkInfo = await sdkRing.get("alice");
    expect(sdkInfo.address).toMatch(/^sdk1/);
    expect(await sdkRing.get(sdkInfo.address)).toEqual(sdkInfo);
    expect(await sdkRing.exists(info.address)).toBe(false);
  });

  it("rejects unknown and unsupported backends", () => {
    expect(() => openKeyring({ backend: "os", home, prefix: "sdk" })).toThrow(/"os" is not supported/);
    expect(() => openKeyring({ backend: "memory", home, prefix: "sdk" })).toThrow(KeyringError);
  });
});
