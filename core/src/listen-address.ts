/** Splits a listen address (`tcp://127.0.0.1:26657`, `localhost:9090`, `[::1]:1317`) into host and port. */
export function parseListenAddress(address: string, setting: string): { host: string; port: number } {
  const rest = address.replace(/^tcp:\/\//, "");
  const m = rest.match(/^(?:\[([^\]]+)\]|([^:/]*)):(\d{1,5})$/);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || port > 65535)
    throw new Error(
      `${setting}: cannot parse listen address ${JSON.stringify(address)}; expected tcp://host:port`,
    );
  return { host: m[1] ?? (m[2] || "127.0.0.1"), port };
}
