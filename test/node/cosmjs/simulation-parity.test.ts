import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import { SimulateRequestSchema, SimulateResponseSchema } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import { AuthInfoSchema, TxBodySchema, TxRawSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { GasPrice, SigningStargateClient } from "@cosmjs/stargate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeProcess } from "../helpers/chaind-process.js";
import { anyOf } from "../helpers/signed-tx.js";
import { makeTestHome, type TestAccount, testAccount } from "../helpers/test-home.js";

// Stock CosmJS simulates with an empty fee and an empty signature, then asks for 1.4 times what it measured:
// simulation must charge what delivery will, or a tight multiplier runs out of gas.
const MNEMONICS = [
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
  "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
  "legal winner thank year wave sausage worth useful legal winner thank yellow",
];

describe("simulated gas matches delivered gas (stock CosmJS 0.39, fee auto)", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let rpc: string;
  const wallets: DirectSecp256k1HdWallet[] = [];
  const addresses: string[] = [];

  beforeAll(async () => {
    for (const m of MNEMONICS) {
      const w = await DirectSecp256k1HdWallet.fromMnemonic(m, { prefix: "sdk" });
      wallets.push(w);
      addresses.push((await w.getAccounts())[0].address);
    }
    home = makeTestHome({
      chainId: "simgas-1",
      accounts: addresses.map((address) => ({
        account: { address } as TestAccount,
        coins: "50000000stake",
      })),
    });
    node = new NodeProcess(home.home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2/);
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  async function sendAuto(from: number, to: string, memo: string) {
    const client = await SigningStargateClient.connectWithSigner(rpc, wallets[from], {
      gasPrice: GasPrice.fromString("0.025stake"),
    });
    const msg = {
      typeUrl: "/cosmos.bank.v1beta1.MsgSend",
      value: { fromAddress: addresses[from], toAddress: to, amount: [{ denom: "stake", amount: "1000" }] },
    };
    const simulated = await client.simulate(addresses[from], [msg], memo);
    const result = await client.sendTokens(
      addresses[from],
      to,
      [{ denom: "stake", amount: "1000" }],
      "auto",
      memo,
    );
    client.disconnect();
    expect(result.code, result.rawLog).toBe(0);
    return { simulated, used: Number(result.gasUsed), wanted: Number(result.gasWanted) };
  }

  function expectClose(r: { simulated: number; used: number }) {
    // Within a few percent either way (the SDK's own estimate is a little over: a placeholder signature).
    expect(Math.abs(r.simulated - r.used) / r.used, JSON.stringify(r)).toBeLessThan(0.02);
  }

  it("from a fresh account (no public key on chain) to a new recipient", async () => {
    expectClose(await sendAuto(0, testAccount("sim-new-1").address, ""));
  });

  it("from an account that has sent before, to a new recipient", async () => {
    expectClose(await sendAuto(0, testAccount("sim-new-2").address, "a memo counts by its bytes"));
  });

  it("from a fresh account to an existing recipient, and again once it is old", async () => {
    expectClose(await sendAuto(1, addresses[0], ""));
    expectClose(await sendAuto(1, addresses[0], "again"));
  });

  it("without a public key from an account that has none, simulation stores a placeholder key's worth", async () => {
    const to = testAccount("sim-new-3").address;
    const send = anyOf(MsgSendSchema, {
      fromAddress: addresses[2],
      toAddress: to,
      amount: [{ denom: "stake", amount: "1000" }],
    });
    const txBytes = toBinary(
      TxRawSchema,
      create(TxRawSchema, {
        bodyBytes: toBinary(TxBodySchema, create(TxBodySchema, { messages: [send] })),
        authInfoBytes: toBinary(
          AuthInfoSchema,
          create(AuthInfoSchema, {
            signerInfos: [
              { modeInfo: { sum: { case: "single", value: { mode: SignMode.UNSPECIFIED } } }, sequence: 0n },
            ],
            fee: {},
          }),
        ),
        signatures: [new Uint8Array()],
      }),
    );
    const client = await SigningStargateClient.connectWithSigner(rpc, wallets[2], {
      gasPrice: GasPrice.fromString("0.025stake"),
    });
    const request = toBinary(SimulateRequestSchema, create(SimulateRequestSchema, { txBytes }));
    const answer = await fetch(rpc, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "abci_query",
        params: { path: "/cosmos.tx.v1beta1.Service/Simulate", data: Buffer.from(request).toString("hex") },
      }),
    });
    const { response } = ((await answer.json()) as { result: { response: { value: string } } }).result;
    const simulated = Number(
      fromBinary(SimulateResponseSchema, Buffer.from(response.value, "base64")).gasInfo?.gasUsed,
    );
    const result = await client.sendTokens(addresses[2], to, [{ denom: "stake", amount: "1000" }], "auto");
    client.disconnect();
    expect(result.code, result.rawLog).toBe(0);
    expectClose({ simulated, used: Number(result.gasUsed) });
  });
});
