import { writeFileSync } from "node:fs";
import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { type Proposal, VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import { QueryProposalRequestSchema, QueryProposalResponseSchema } from "@chaind/proto/sdk/gov/v1/query_pb";
import { MsgSubmitProposalSchema, MsgVoteSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { expect } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import type { ChainNode } from "../../../node/src/chain/chain-node.js";
import { moduleAddress } from "../../../node/src/crypto/address.js";
import { anyOf, type TxSigner } from "./signed-tx.js";

export const GOV_ADDRESS = new AddressCodec("sdk").toString(moduleAddress("gov"));

/**
 * Writes the file `chaind tx gov submit-proposal <file>` takes: a send of `stake` from the gov account to `to`,
 * with a deposit that opens voting at once. Answers the path.
 */
export function writeSendProposal(
  path: string,
  p: { to: string; stake: string; title: string; summary: string },
): string {
  const send = {
    "@type": "/cosmos.bank.v1beta1.MsgSend",
    from_address: GOV_ADDRESS,
    to_address: p.to,
    amount: [{ denom: "stake", amount: p.stake }],
  };
  writeFileSync(
    path,
    JSON.stringify({ messages: [send], deposit: "10000000stake", title: p.title, summary: p.summary }),
  );
  return path;
}

/** Asks the App a query in process, at the latest or a given height. */
export async function queryApp<I extends DescMessage, O extends DescMessage>(
  node: ChainNode,
  path: string,
  input: I,
  req: object,
  output: O,
  height = 0,
): Promise<MessageShape<O>> {
  const r = await node.app.query(path, toBinary(input, create(input, req as never)), height);
  return fromBinary(output, r.value);
}

/**
 * Submits a proposal carrying `msgs` from the validator's account, votes YES with it, and produces blocks
 * until the (short, test-genesis) voting period has ended. Answers the proposal as stored afterwards.
 */
export async function passProposal(
  node: ChainNode,
  validator: TxSigner,
  msgs: Any[],
  votingPeriodMs = 1000,
): Promise<Proposal> {
  const proposer = validator.account.address;
  const submit = await node.mempool.add(
    await validator.sign([
      anyOf(MsgSubmitProposalSchema, {
        messages: msgs,
        initialDeposit: [{ denom: "stake", amount: "1000" }],
        proposer,
        title: "t",
        summary: "s",
      }),
    ]),
  );
  expect(submit.code, submit.log).toBe(0);
  const b = await node.producer.produce();
  expect(b.txResults[0].code, b.txResults[0].log).toBe(0);
  const id = BigInt(
    b.txResults[0].events
      .find((e) => e.type === "submit_proposal")!
      .attributes.find((a) => a.key === "proposal_id")!.value,
  );
  const vote = await node.mempool.add(
    await validator.sign([anyOf(MsgVoteSchema, { proposalId: id, voter: proposer, option: VoteOption.YES })]),
  );
  expect(vote.code, vote.log).toBe(0);
  const voted = await node.producer.produce();
  expect(voted.txResults[0].code, voted.txResults[0].log).toBe(0);
  await new Promise((r) => setTimeout(r, votingPeriodMs + 100));
  await node.producer.produce();
  const p = await queryApp(
    node,
    "/sdk.gov.v1.Query/Proposal",
    QueryProposalRequestSchema,
    { proposalId: id },
    QueryProposalResponseSchema,
  );
  return p.proposal!;
}
