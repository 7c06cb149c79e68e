import { create } from "@bufbuild/protobuf";
import type { PageRequest } from "@chaind/proto/sdk/base/query/v1beta1/pagination_pb";
import {
  type GetBlockWithTxsResponse,
  GetBlockWithTxsResponseSchema,
} from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import type { Tx } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { DEFAULT_PAGE_LIMIT } from "../app/pagination.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { TendermintBackend } from "./tendermint-service.js";
import { txOfRaw } from "./tx-response.js";

/**
 * The tx service's GetBlockWithTxs, with Cosmos SDK 0.50's rules: a height from 1 to the query's height; the
 * block's txs decoded, paged by offset and limit over their order in the block (no pagination: the first 100; a
 * limit of 0: all, which the block size bounds), the total being the block's tx count. Reverse walks down from
 * the offset and stops before index 0, as the SDK's loop does. A tx that does not decode (a proposer may put
 * any bytes in a CometBFT block) is left out, as later SDK releases leave it out, rather than failing the block.
 */
export async function blockWithTxs(
  blocks: Pick<TendermintBackend, "block">,
  height: bigint,
  currentHeight: number,
  pagination: PageRequest | undefined,
): Promise<GetBlockWithTxsResponse> {
  if (height < 1n || height > BigInt(currentHeight))
    throw ChainError.wrap(
      SdkErrors.InvalidHeight,
      `requested height ${height} but height must not be less than 1 or greater than the current height ${currentHeight}`,
    );
  const found = await blocks.block(Number(height));
  if (!found) throw ChainError.wrap(SdkErrors.InvalidHeight, `block ${height} is not available on this node`);
  const raw = found.block.data?.txs ?? [];
  const total = BigInt(raw.length);
  const offset = pagination ? pagination.offset : 0n;
  const limit = pagination ? pagination.limit : DEFAULT_PAGE_LIMIT;
  if (offset >= total && total !== 0n)
    throw ChainError.wrap(
      SdkErrors.InvalidRequest,
      `out of range: cannot paginate ${total} txs with offset ${offset} and limit ${limit}`,
    );
  const txs: Tx[] = [];
  const step = pagination?.reverse ? -1n : 1n;
  const inRange = (i: bigint) => (step < 0n ? i > 0n : i < total);
  for (let i = offset, count = 0n; inRange(i) && count !== limit; i += step, count++) {
    try {
      txs.push(txOfRaw(raw[Number(i)]));
    } catch {
      // Not a tx this chain can read: left out, the total still counts it.
    }
  }
  return create(GetBlockWithTxsResponseSchema, {
    txs,
    blockId: found.blockId,
    block: found.block,
    pagination: { total },
  });
}
