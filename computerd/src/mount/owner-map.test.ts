/**
 * Owner maps: the ids each gives the kernel back unchanged (roundTrip), for which the FUSE loop
 * may answer a create (a new file shows as its caller's).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { offsetOwners, swapOwners } from "./owner-map.ts";

const roundTrips = (map: ReturnType<typeof swapOwners>, id: number) => {
  const back = map.toKernel(map.fromKernel({ uid: id, gid: id }));
  return back.uid === id && back.gid === id;
};

describe("owner maps' round trips", () => {
  it("a swap gives every id back", () => {
    const map = swapOwners({ uid: 0, gid: 0 }, { uid: 65534, gid: 65534 });
    expect(map.roundTrip).toEqual({ lo: 0, hi: 2 ** 32 });
    fc.assert(fc.property(fc.nat(2 ** 32 - 1), (id) => roundTrips(map, id)));
  });

  it("an offset gives back exactly the ids of its range", () => {
    const map = offsetOwners(100_000, 65_536);
    expect(map.roundTrip).toEqual({ lo: 100_000, hi: 165_536 });
    fc.assert(
      fc.property(fc.nat(300_000), (id) => {
        const inside = id >= map.roundTrip.lo && id < map.roundTrip.hi;
        return !inside || roundTrips(map, id);
      }),
    );
    expect(roundTrips(map, 0)).toBe(false);
  });
});
