"""The commit-msg hook (.githooks/commit-msg) enforces CONTRIBUTING.md's subject rule:
a commit's first line is at most 72 characters, so it is read whole in
``git log --oneline``, in shortlogs and in tools that cut longer ones.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / ".githooks" / "commit-msg"


def run_hook(tmp_path, message):
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    return subprocess.run([sys.executable, str(HOOK), str(path)], capture_output=True,
                          text=True, timeout=60)


def test_subject_of_72_characters_is_accepted(tmp_path):
    done = run_hook(tmp_path, "a" * 72 + "\n\nWhy the change was made.\n")
    assert done.returncode == 0, done.stderr


def test_subject_of_73_characters_is_refused_with_its_length(tmp_path):
    done = run_hook(tmp_path, "a" * 73 + "\n\nWhy the change was made.\n")
    assert done.returncode != 0
    assert "73 characters" in done.stderr and "72" in done.stderr


def test_characters_are_counted_not_bytes(tmp_path):
    assert run_hook(tmp_path, "é" * 72 + "\n").returncode == 0
    assert run_hook(tmp_path, "é" * 73 + "\n").returncode != 0


def test_comment_lines_and_a_long_body_do_not_count(tmp_path):
    # git hands the hook its message before removing the "#" lines of the template
    message = "# " + "c" * 100 + "\n\n" + "a" * 72 + "\n\n" + "b" * 200 + "\n# " + "c" * 100 + "\n"
    assert run_hook(tmp_path, message).returncode == 0


def test_merge_and_fixup_subjects_follow_the_same_rule(tmp_path):
    for prefix in ("Merge branch ", "fixup! ", "squash! "):
        assert run_hook(tmp_path, prefix + "x" * (72 - len(prefix)) + "\n").returncode == 0
        assert run_hook(tmp_path, prefix + "x" * (73 - len(prefix)) + "\n").returncode != 0


@pytest.mark.skipif(os.name != "posix", reason="git runs hooks as executables on POSIX")
def test_git_runs_the_hook(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    assert os.access(HOOK, os.X_OK), "git skips a hook that is not executable"
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    repo = tmp_path / "repo"

    def git(*args):
        return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True,
                              timeout=60)

    repo.mkdir()
    assert git("init", "-q").returncode == 0
    assert git("config", "core.hooksPath", str(HOOK.parent)).returncode == 0
    refused = git("commit", "-q", "--allow-empty", "-m", "a" * 73)
    assert refused.returncode != 0 and "73 characters" in refused.stderr
    accepted = git("commit", "-q", "--allow-empty", "-m", "a" * 72, "-m", "Why.")
    assert accepted.returncode == 0, accepted.stderr
