import type { DescMessage, DescService, MessageShape } from "@bufbuild/protobuf";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { Context } from "./context.js";

// biome-ignore lint/suspicious/noExplicitAny: handlers are typed per service through the helper types below
type AnyMessage = any;

/** A handler for one RPC of a service: request in, response out, run inside a Context. */
export type RpcHandler<I extends DescMessage, O extends DescMessage> = (
  ctx: Context,
  req: MessageShape<I>,
) => Promise<MessageShape<O>>;

/** The implementation object for a service: one handler per method, keyed by the method's local name. */
export type ServiceImpl<S extends DescService> = {
  [K in keyof S["method"]]: S["method"][K] extends {
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  }
    ? RpcHandler<I, O>
    : never;
};

/**
 * Stateless checks of a Msg service's messages, by method (Cosmos' ValidateBasic): each throws the error that
 * refuses its message, reading nothing but the message.
 */
export type MsgChecks<S extends DescService> = Partial<{
  [K in keyof S["method"]]: S["method"][K] extends { input: infer I extends DescMessage }
    ? (req: MessageShape<I>) => void
    : never;
}>;

export interface RegisteredMethod {
  /** `/sdk.bank.v1beta1.Query/AllBalances` */
  path: string;
  service: DescService;
  input: DescMessage;
  output: DescMessage;
  handler: (ctx: Context, req: AnyMessage) => Promise<AnyMessage>;
  /** A Msg's stateless check, run on every tx before its ante handler (CheckTx, simulation, block). */
  validateBasic?: (req: AnyMessage) => void;
}

/** Where modules put their Msg and Query services; the app's routers read from it. */
export class ServiceRegistrar {
  /** Msg handlers keyed by the input message's full name (`sdk.bank.v1beta1.MsgSend`). */
  readonly msgs = new Map<string, RegisteredMethod>();
  /** Query handlers keyed by method path (`/sdk.bank.v1beta1.Query/AllBalances`). */
  readonly queries = new Map<string, RegisteredMethod>();
  readonly queryServices: DescService[] = [];

  msgService<S extends DescService>(service: S, impl: ServiceImpl<S>, checks: MsgChecks<S> = {}): void {
    for (const m of service.methods) {
      const handler = (impl as Record<string, RegisteredMethod["handler"]>)[m.localName];
      const validateBasic = (checks as Record<string, RegisteredMethod["validateBasic"]>)[m.localName];
      if (!handler) throw new Error(`${service.typeName}: no handler for ${m.name}`);
      if (this.msgs.has(m.input.typeName)) throw new Error(`msg ${m.input.typeName} registered twice`);
      this.msgs.set(m.input.typeName, {
        path: `/${service.typeName}/${m.name}`,
        service,
        input: m.input,
        output: m.output,
        handler,
        validateBasic,
      });
    }
  }

  queryService<S extends DescService>(service: S, impl: Partial<ServiceImpl<S>>): void {
    this.queryServices.push(service);
    for (const m of service.methods) {
      const path = `/${service.typeName}/${m.name}`;
      const handler =
        (impl as Record<string, RegisteredMethod["handler"]>)[m.localName] ??
        (async () => {
          throw ChainError.wrap(SdkErrors.NotSupported, `${path} is not implemented`);
        });
      this.queries.set(path, { path, service, input: m.input, output: m.output, handler });
    }
  }
}
