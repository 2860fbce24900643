/** A link takes the computer's limits once: a push sends them again only when they changed. */
import type { ComputerLimits } from "@computer/vfs/sync";
import { describe, expect, it } from "vitest";
import type { LinkSession } from "./computerd-link.ts";
import { sendLimits } from "./container-limits.ts";

/** A session whose computerd records the limits it took, failing while `refuse` is set. */
function session(): { link: LinkSession; taken: ComputerLimits[]; refuse: boolean } {
  const state = { taken: [] as ComputerLimits[], refuse: false };
  const link = {
    limitsTaken: undefined,
    daemon: {
      setLimits: async (limits: ComputerLimits) => {
        if (state.refuse) throw new Error("link failed");
        state.taken.push(limits);
      },
    },
  } as unknown as LinkSession;
  return Object.assign(state, { link });
}

describe("sendLimits", () => {
  it("sends limits a link has not taken, and only those", async () => {
    const s = session();
    await sendLimits(s.link, { quotaBytes: 1000 });
    await sendLimits(s.link, { quotaBytes: 1000 });
    expect(s.taken).toEqual([{ quotaBytes: 1000 }]);
    await sendLimits(s.link, { quotaBytes: null });
    await sendLimits(s.link, { quotaBytes: null });
    expect(s.taken).toEqual([{ quotaBytes: 1000 }, { quotaBytes: null }]);
  });

  it("limits a link refused are sent again next time", async () => {
    const s = session();
    s.refuse = true;
    await expect(sendLimits(s.link, { quotaBytes: 5 })).rejects.toThrow("link failed");
    s.refuse = false;
    await sendLimits(s.link, { quotaBytes: 5 });
    expect(s.taken).toEqual([{ quotaBytes: 5 }]);
  });

  it("a new link takes them again", async () => {
    const first = session();
    const second = session();
    await sendLimits(first.link, { quotaBytes: 7 });
    await sendLimits(second.link, { quotaBytes: 7 });
    expect(second.taken).toEqual([{ quotaBytes: 7 }]);
  });
});
