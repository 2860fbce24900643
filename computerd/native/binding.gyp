{
  "targets": [
    {
      "target_name": "fuse3",
      "sources": ["fuse3.c", "write-run.c", "buffer-pool.c", "kill-priv.c", "loop-names.c", "loop-entries.c", "loop-creates.c", "loop-contents.c", "loop-changes.c", "writer-cpu.c"],
      "cflags": ["<!@(pkg-config --cflags fuse3)", "-Wall", "-O2"],
      "libraries": ["<!@(pkg-config --libs fuse3)"],
      "defines": ["NAPI_VERSION=8", "_GNU_SOURCE"]
    }
  ]
}
