import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { create, getOption, toBinary } from "@bufbuild/protobuf";
import { http } from "@chaind/proto/google/api/annotations_pb";
import { Query as BankQuery } from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { Msg as BankMsg, MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { service, signer } from "@chaind/proto/sdk/msg/v1/msg_pb";
import { Service as TxService } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import { TxRawSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const committed = join(root, "proto/gen");

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe("proto generation", () => {
  it("proto/gen is what proto/ generates", () => {
    const out = mkdtempSync(join(tmpdir(), "proto-gen-test-"));
    try {
      execFileSync(process.execPath, [join(root, "dist/scripts/generate-proto.js"), out], {
        cwd: root,
        stdio: "pipe",
      });
      const hint = "proto/gen is out of date with proto/: run npm run proto";
      const fresh = listFiles(out);
      expect(listFiles(committed), hint).toEqual(fresh);
      for (const file of fresh) {
        const want = readFileSync(join(out, file), "utf8");
        const have = readFileSync(join(committed, file), "utf8");
        expect(have === want, `${file} differs; ${hint}`).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("generated wire facts", () => {
  it("encodes MsgSend with Cosmos field numbers", () => {
    const msg = create(MsgSendSchema, {
      fromAddress: "a",
      toAddress: "b",
      amount: [{ denom: "stake", amount: "1" }],
    });
    const bytes = toBinary(MsgSendSchema, msg);
    // field 1 (from_address), wire type 2: tag 0x0a; field 2: 0x12; field 3: 0x1a
    expect([...bytes]).toEqual([
      0x0a,
      1,
      0x61,
      0x12,
      1,
      0x62,
      0x1a,
      10,
      0x0a,
      5,
      ...Buffer.from("stake"),
      0x12,
      1,
      0x31,
    ]);
    expect(MsgSendSchema.typeName).toBe("sdk.bank.v1beta1.MsgSend");
  });

  it("encodes TxRaw fields 1..3 in order", () => {
    const raw = create(TxRawSchema, {
      bodyBytes: new Uint8Array([1]),
      authInfoBytes: new Uint8Array([2]),
      signatures: [new Uint8Array([3])],
    });
    expect([...toBinary(TxRawSchema, raw)]).toEqual([0x0a, 1, 1, 0x12, 1, 2, 0x1a, 1, 3]);
  });

  it("carries google.api.http annotations", () => {
    const allBalances = getOption(BankQuery.method.allBalances, http);
    expect(allBalances.pattern).toEqual({ case: "get", value: "/sdk/bank/v1beta1/balances/{address}" });
    const broadcast = getOption(TxService.method.broadcastTx, http);
    expect(broadcast.pattern).toEqual({ case: "post", value: "/sdk/tx/v1beta1/txs" });
    expect(broadcast.body).toBe("*");
  });

  it("carries the msg service and signer options", () => {
    expect(getOption(MsgSendSchema, signer)).toEqual(["from_address"]);
    expect(getOption(BankMsg, service)).toBe(true);
  });
});
