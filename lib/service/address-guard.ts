import "server-only";
import { lookup } from "node:dns/promises";
import { isForbiddenServiceAddress, isForbiddenServiceHost } from "./address";
import { ADDRESS_REFUSED, ServiceError } from "./errors";

export type ResolveHost = (hostname: string) => Promise<string[]>;

const systemResolve: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Refuses a base URL that leads to a link-local or cloud metadata address: at once for a name or literal known to be
 * one, and before the first request for a name that resolves to one. The name is resolved once per client; fetch
 * resolves it again, so a name whose answers change between the two is not caught here (the game form refuses the
 * known names and literals when the game is saved).
 */
export function createAddressGuard(hostname: string, enabled: boolean, resolveHost: ResolveHost = systemResolve) {
  if (enabled && isForbiddenServiceHost(hostname))
    throw new ServiceError({ kind: "network", code: ADDRESS_REFUSED, host: hostname });
  const literal = /^\[|^[\d.]+$/.test(hostname);
  let checked: Promise<void> | null = null;
  return {
    check(): Promise<void> {
      if (!enabled || literal) return Promise.resolve();
      checked ??= resolveHost(hostname).then(
        (addresses) => {
          const forbidden = addresses.find((address) => isForbiddenServiceAddress(address));
          if (forbidden)
            throw new ServiceError({ kind: "network", code: ADDRESS_REFUSED, host: hostname, address: forbidden });
        },
        // An unresolvable name fails at fetch as a network error, retried like any other; it is resolved again next
        // time.
        () => {
          checked = null;
        },
      );
      return checked;
    },
  };
}
