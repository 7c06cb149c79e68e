import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import {
  GetBlockByHeightResponseSchema,
  GetLatestBlockResponseSchema,
  GetLatestValidatorSetResponseSchema,
  GetNodeInfoResponseSchema,
  GetSyncingResponseSchema,
  Service,
} from "@chaind/proto/sdk/base/tendermint/v1beta1/query_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { AddressCodec } from "../app/address-codec.js";
import type { ServiceRegistrar } from "../app/service-registrar.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { COMET_VERSION } from "../server/rpc/rpc-methods.js";
import type { ChainNode } from "./chain-node.js";

/** `sdk.base.tendermint.v1beta1.Service`: node info, sync state, blocks and the validator set. */
export function registerTendermintService(
  registrar: ServiceRegistrar,
  node: ChainNode,
  addresses: AddressCodec,
): void {
  const { blocks, signer } = node;
  const blockAt = async (height: number) => {
    const [block, meta] = await Promise.all([blocks.block(height), blocks.meta(height)]);
    if (!block || !meta)
      throw ChainError.wrap(
        SdkErrors.InvalidRequest,
        `requested block height ${height} is bigger then the chain length ${blocks.height}`,
      );
    return { blockId: meta.blockId, block };
  };
  const validatorSet = () => ({
    blockHeight: BigInt(blocks.height),
    validators: [
      {
        address: new AddressCodec(`${addresses.prefix}valcons`).toString(signer.address),
        pubKey: create(AnySchema, {
          typeUrl: "/sdk.crypto.ed25519.PubKey",
          value: toBinary(PubKeySchema, create(PubKeySchema, { key: signer.pubKey })),
        }),
        votingPower: node.votingPower(),
        proposerPriority: 0n,
      },
    ],
    pagination: { nextKey: new Uint8Array(), total: 1n },
  });
  registrar.queryService(Service, {
    getNodeInfo: async () =>
      create(GetNodeInfoResponseSchema, {
        defaultNodeInfo: {
          protocolVersion: { p2p: 8n, block: 11n, app: BigInt(node.app.info().appVersion) },
          defaultNodeId: Buffer.from(signer.address).toString("hex"),
          listenAddr: node.nodeConfig.rpc.laddr,
          network: node.chainId,
          version: COMET_VERSION,
          moniker: node.nodeConfig.moniker,
          other: { txIndex: "on", rpcAddress: node.nodeConfig.rpc.laddr },
        },
        applicationVersion: {
          name: node.app.opts.name,
          appName: node.app.opts.name,
          version: node.app.opts.version,
          goVersion: `node ${process.version}`,
        },
      }),
    getSyncing: async () => create(GetSyncingResponseSchema, { syncing: false }),
    getLatestBlock: async () => create(GetLatestBlockResponseSchema, await blockAt(blocks.height)),
    getBlockByHeight: async (_ctx, req) => {
      if (req.height <= 0n)
        throw ChainError.wrap(SdkErrors.InvalidRequest, "block height must be greater than 0");
      return create(GetBlockByHeightResponseSchema, await blockAt(Number(req.height)));
    },
    getLatestValidatorSet: async () => create(GetLatestValidatorSetResponseSchema, validatorSet()),
  });
}
