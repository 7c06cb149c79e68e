import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { NodeCallError } from "@chaind/core/comet-rpc-client";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import {
  QueryAccountRequestSchema,
  QueryAccountResponseSchema,
} from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import { CliError } from "./cli-error.js";
import type { QueryArgs } from "./query-options.js";
import { nodeClient } from "./run-query.js";

/** What signing needs of an account: its numbers, and its public key once a tx of its own has set it. */
export interface ChainAccount {
  accountNumber: bigint;
  sequence: bigint;
  pubKey?: Uint8Array;
}

/** The account as the node knows it; a missing account is a one-line CLI error. */
export async function chainAccount(args: QueryArgs, address: string): Promise<ChainAccount> {
  const req = toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address }));
  try {
    const r = await nodeClient(args).query("/sdk.auth.v1beta1.Query/Account", req);
    const base = fromBinary(
      BaseAccountSchema,
      fromBinary(QueryAccountResponseSchema, r.value).account!.value,
    );
    const pubKey = base.pubKey?.value.length ? fromBinary(PubKeySchema, base.pubKey.value).key : undefined;
    return { accountNumber: base.accountNumber, sequence: base.sequence, pubKey };
  } catch (e) {
    if (e instanceof NodeCallError && /NotFound/.test(e.message))
      throw new CliError(`account ${address} does not exist on chain: fund it first`);
    if (e instanceof NodeCallError) throw new CliError(e.message);
    throw e;
  }
}
