# Sourced: a Python virtual environment in .venv-ci/ for every pip install; `venv_pip PKG...`.
VENV=${GPULAB_VENV:-$PWD/.venv-ci}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || {
  echo "error: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2
  exit 1
}
venv_pip() {
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}
