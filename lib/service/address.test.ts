import { describe, expect, it } from "vitest";
import { isForbiddenServiceAddress, isForbiddenServiceHost } from "./address";

describe("addresses a game's base URL may not reach", () => {
  it.each([
    "169.254.169.254",
    "169.254.170.2",
    "169.254.0.1",
    "100.100.100.200",
    "192.0.0.192",
    "0.0.0.0",
    "fe80::1",
    "FE80::abcd:1%eth0",
    "febf::1",
    "fd00:ec2::254",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "[fe80::1]",
    "::",
  ])("refuses %s", (address) => {
    expect(isForbiddenServiceAddress(address)).toBe(true);
  });

  it.each([
    "127.0.0.1",
    "10.0.0.5",
    "93.184.216.34",
    "169.253.255.255",
    "::1",
    "2001:db8::1",
    "fec0::1",
    "fd00:ec2::253",
    "::ffff:8.8.8.8",
    "not an address",
  ])("lets %s through", (address) => {
    expect(isForbiddenServiceAddress(address)).toBe(false);
  });

  it("refuses metadata host names, whatever their case or trailing dot", () => {
    for (const host of [
      "metadata.google.internal",
      "METADATA.google.internal.",
      "metadata.goog",
      "instance-data.ec2.internal",
      "169.254.169.254",
    ]) {
      expect(isForbiddenServiceHost(host), host).toBe(true);
    }
    for (const host of ["api.service.example", "metadata.google.internal.example.com", "localhost"]) {
      expect(isForbiddenServiceHost(host), host).toBe(false);
    }
  });

  it("sees through the forms a URL parser normalises to a link-local address", () => {
    for (const url of [
      "https://0xA9FEA9FE/",
      "https://169.254.169.254.",
      "https://2852039166/",
      "https://[::ffff:169.254.169.254]/",
    ]) {
      expect(isForbiddenServiceHost(new URL(url).hostname), url).toBe(true);
    }
  });
});
