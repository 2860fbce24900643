import type { OwnerMap } from "./owner-map.ts";

/** Kernel cache lifetimes (seconds), page-cache policy and owner map, as in FuseTuning. */
export interface Fuse3Timeouts {
  entryTimeout: number;
  attrTimeout: number;
  negativeTimeout: number;
  pageCache: "auto" | "keep";
  /**
   * Owner ids shown to the kernel instead of the vfs's (owner-map.ts): applied to every
   * attribute reply, to chown, and to the caller who becomes the owner of a new node.
   */
  owners?: OwnerMap | undefined;
}
