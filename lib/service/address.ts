/**
 * Addresses a game's base URL may never point at: link-local ranges and the cloud metadata endpoints reachable from
 * inside a host. A base URL is typed by an admin, and the client sends the game secret to it; pointed at a metadata
 * endpoint it would fetch the host's own credentials. Pure (no DNS), so the game form and the client share it.
 */

/** Names that resolve to a metadata endpoint inside a cloud, compared without a trailing dot and case-insensitively. */
const METADATA_HOSTS: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

/** IPv4 metadata endpoints outside 169.254.0.0/16: Alibaba Cloud, Oracle Cloud (legacy). */
const METADATA_IPV4: ReadonlySet<string> = new Set(["100.100.100.200", "192.0.0.192"]);

function parseIpv4(text: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return null;
  const parts = match.slice(1).map(Number);
  return parts.every((n) => n <= 255) ? parts : null;
}

/** The eight 16-bit groups of an IPv6 address (brackets and a zone id allowed), or null when it is not one. */
function parseIpv6(text: string): number[] | null {
  let value = text.replace(/^\[|\]$/g, "").toLowerCase();
  const zone = value.indexOf("%");
  if (zone >= 0) value = value.slice(0, zone);
  if (!value.includes(":")) return null;
  // A trailing dotted IPv4 (::ffff:169.254.169.254) becomes two groups.
  const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(value);
  if (dotted) {
    const v4 = parseIpv4(dotted[2] as string);
    if (!v4) return null;
    const high = ((v4[0] as number) * 256 + (v4[1] as number)).toString(16);
    const low = ((v4[2] as number) * 256 + (v4[3] as number)).toString(16);
    value = `${dotted[1]}${high}:${low}`;
  }
  const halves = value.split("::");
  if (halves.length > 2) return null;
  const read = (part: string) => (part === "" ? [] : part.split(":"));
  const head = read(halves[0] as string);
  const tail = halves.length === 2 ? read(halves[1] as string) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

function isForbiddenIpv4(parts: readonly number[]): boolean {
  // 169.254.0.0/16: link-local, home of 169.254.169.254 (AWS, GCP, Azure, OpenStack) and 169.254.170.2 (ECS).
  if (parts[0] === 169 && parts[1] === 254) return true;
  // 0.0.0.0/8 reaches the host itself on most systems.
  if (parts[0] === 0) return true;
  return METADATA_IPV4.has(parts.join("."));
}

/** Whether an IP address (v4 or v6, as a resolver or a URL gives it) is link-local or a metadata endpoint. */
export function isForbiddenServiceAddress(address: string): boolean {
  const v4 = parseIpv4(address.trim());
  if (v4) return isForbiddenIpv4(v4);
  const v6 = parseIpv6(address.trim());
  if (!v6) return false;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = v6 as [number, number, number, number, number, number, number, number];
  // fe80::/10: link-local.
  if ((g0 & 0xffc0) === 0xfe80) return true;
  // fd00:ec2::254: the AWS instance metadata service over IPv6.
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254)
    return true;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms carry an IPv4 address to check.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0) && (g6 !== 0 || g7 > 1)) {
    return isForbiddenIpv4([g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]);
  }
  // :: (unspecified) reaches the host itself.
  return v6.every((g) => g === 0);
}

/** Whether a URL's hostname names a metadata endpoint or is a forbidden address literal. */
export function isForbiddenServiceHost(hostname: string): boolean {
  const host = hostname.trim().toLowerCase().replace(/\.+$/, "");
  if (METADATA_HOSTS.has(host)) return true;
  return isForbiddenServiceAddress(host);
}
