# Sourced by tools/perf-ab and the tools/*-instructions/run scripts: each
# side of a comparison (a, b, c ...) is a git worktree of the commit under
# ${PERF_AB_DIR:-/tmp/perf-ab}/SIDE/src with a target directory of its own
# beside it (two checkouts must not share one: cargo would take one's
# binaries as fresh for the other). Both are kept, so a second comparison
# builds only what changed, not bevy again.

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${PERF_AB_DIR:-/tmp/perf-ab}"
# every release build of these tools with the same debug info: a build
# with other settings rebuilds all of bevy (17 minutes on 2 cores)
export CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-line-tables-only}"

# checkout_side TOOL SIDE COMMIT: checks COMMIT out in SIDE's worktree
# and prints the side's directory; fails (naming TOOL) when the worktree
# is not a clean checkout of it.
checkout_side() {
  local tool="$1" side="$2" sha dir
  sha="$(git -C "$repo" rev-parse "$3")"
  dir="$work/$side"
  mkdir -p "$dir"
  if [ ! -d "$dir/src" ]; then
    git -C "$repo" worktree add --detach "$dir/src" "$sha" >&2
  else
    git -C "$dir/src" checkout --quiet --detach "$sha" >&2 || true
  fi
  # a worktree left dirty (or a checkout that failed) would build another
  # tree than the commit named
  if [ "$(git -C "$dir/src" rev-parse HEAD)" != "$sha" ] ||
    [ -n "$(git -C "$dir/src" status --porcelain --untracked-files=no)" ]; then
    echo "$tool: $dir/src is not a clean checkout of $sha; clean it first" >&2
    return 1
  fi
  # the conformance cases and seeds the examples read sit beside the clone
  [ -e "$dir/shared" ] || ln -s "$repo/../shared" "$dir/shared"
  echo "$dir"
}

# build_tool_example DIR SOURCE NAME: builds the tool's SOURCE as the
# example NAME in DIR's worktree (copied in for the build, then removed).
build_tool_example() {
  local dir="$1" source="$2" name="$3"
  cp "$source" "$dir/src/examples/$name.rs"
  (cd "$dir/src" && CARGO_TARGET_DIR="$dir/target" \
    cargo build --release --example "$name" --all-features >&2)
  rm "$dir/src/examples/$name.rs"
}
