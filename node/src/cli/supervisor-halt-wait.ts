/**
 * Whether `chaind start` waits to be stopped after an upgrade halt instead of exiting at once.
 *
 * A Cosmos SDK node under CometBFT does not exit at the upgrade height: it stops making blocks and stays up until
 * its supervisor, polling upgrade-info.json, stops it. Stock cosmovisor is built around that: its fallback for a
 * daemon that exits by itself checks the file again from a second goroutine while its poller may be checking it
 * too, and the loser of that race reports "no upgrade" and ends cosmovisor. So under a cosmovisor-style
 * supervisor (DAEMON_HOME or DAEMON_NAME in the environment) chaind waits as an SDK node does. visor handles both
 * and marks its daemons with VISOR_PID: there, and with no supervisor, chaind exits with its halt status at once.
 */
export function waitsForSupervisorAfterHalt(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.DAEMON_HOME || env.DAEMON_NAME) && !env.VISOR_PID;
}
