# Sourced by the CI scripts: a Python virtual environment in .venv-ci/ (git-ignored) for every pip
# install (Debian refuses pip into the system Python). `venv_pip PKG...` installs into it.
VENV=${GPULAB_VENV:-$PWD/.venv-ci}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" || {
    echo "error: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2
    exit 1
  }
fi
venv_pip() {
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}
