import { create } from "@bufbuild/protobuf";
import { BlockSchema, type Block as SdkBlock } from "@chaind/proto/sdk/base/tendermint/v1beta1/types_pb";
import type { Block } from "@chaind/proto/tendermint/types/block_pb";
import type { AddressCodec } from "../app/address-codec.js";

/**
 * A CometBFT block as the SDK's `sdk_block` carries it: the same data, evidence and last commit, and the header
 * with its proposer address as a bech32 consensus address (`<prefix>valcons1…`) instead of bytes.
 */
export function sdkBlock(block: Block, valcons: AddressCodec): SdkBlock {
  const h = block.header;
  return create(BlockSchema, {
    header: h && {
      version: h.version,
      chainId: h.chainId,
      height: h.height,
      time: h.time,
      lastBlockId: h.lastBlockId,
      lastCommitHash: h.lastCommitHash,
      dataHash: h.dataHash,
      validatorsHash: h.validatorsHash,
      nextValidatorsHash: h.nextValidatorsHash,
      consensusHash: h.consensusHash,
      appHash: h.appHash,
      lastResultsHash: h.lastResultsHash,
      evidenceHash: h.evidenceHash,
      proposerAddress: valcons.toString(h.proposerAddress),
    },
    data: block.data,
    evidence: block.evidence,
    lastCommit: block.lastCommit,
  });
}
