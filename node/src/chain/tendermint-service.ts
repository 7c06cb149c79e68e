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
import type { App } from "../app/app.js";
import type { ServiceRegistrar } from "../app/service-registrar.js";
import type { BlockStore } from "../consensus/block-store.js";
import { COMET_PROTOCOL, COMET_VERSION } from "../consensus/comet-version.js";
import type { ValidatorSigner } from "../consensus/validator-signer.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

/** What the service reports on: the node's app, blocks and validator, and how it presents itself. */
export interface TendermintServiceDeps {
  app: App;
  blocks: BlockStore;
  signer: ValidatorSigner;
  addresses: AddressCodec;
  chainId: string;
  moniker: string;
  /** config.toml's `rpc.laddr`, as node info reports it. */
  rpcAddress: string;
  nodeId: string;
  votingPower(): bigint;
}

/** `sdk.base.tendermint.v1beta1.Service`: node info, sync state, blocks and the validator set. */
export function registerTendermintService(registrar: ServiceRegistrar, deps: TendermintServiceDeps): void {
  const { app, blocks, signer, addresses } = deps;
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
        votingPower: deps.votingPower(),
        proposerPriority: 0n,
      },
    ],
    pagination: { nextKey: new Uint8Array(), total: 1n },
  });
  registrar.queryService(Service, {
    getNodeInfo: async () =>
      create(GetNodeInfoResponseSchema, {
        defaultNodeInfo: {
          protocolVersion: {
            p2p: BigInt(COMET_PROTOCOL.p2p),
            block: BigInt(COMET_PROTOCOL.block),
            app: BigInt(app.info().appVersion),
          },
          defaultNodeId: deps.nodeId,
          listenAddr: deps.rpcAddress,
          network: deps.chainId,
          version: COMET_VERSION,
          moniker: deps.moniker,
          other: { txIndex: "on", rpcAddress: deps.rpcAddress },
        },
        applicationVersion: {
          name: app.opts.name,
          appName: app.opts.name,
          version: app.opts.version,
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
