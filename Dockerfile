# Image of the web, worker and beat services of docker-compose.yml (and of workers on other machines).
# Python 3.12, as the test suite runs where it can (./dev). The packages are not pinned: like ./dev's .venv, the image
# gets the newest versions pyproject.toml allows when it is built, which may be newer than those CI last tested.
FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PYTHONPATH=/app \
    MPLCONFIGDIR=/tmp/matplotlib NUMBA_CACHE_DIR=/tmp/numba
WORKDIR /app
COPY pyproject.toml README.md ./
COPY gecappraise gecappraise
COPY annotation annotation
COPY ranking ranking
RUN pip install --no-cache-dir .
COPY manage.py ./
# The sources in /app come first on the path (PYTHONPATH); with PYTHONDONTWRITEBYTECODE no process would store their
# bytecode, so each would compile them again (~0.2 s of every command's and worker's start): compiled once here.
RUN python -m compileall -q gecappraise annotation ranking manage.py
COPY templates templates
COPY static static
# The hashed, compressed files and their manifest, which the services' settings serve (DEBUG off, PostgreSQL). The
# database URL only takes the settings out of the embedded mode, whose static files are served unhashed and which
# would write no manifest; collectstatic never connects.
RUN SECRET_KEY=build-only DEBUG=0 DATABASE_URL=postgres://build-only@localhost/unused \
    python manage.py collectstatic --noinput
# The workers' numba cache volume (docker-compose.yml) takes this folder's owner when it is first created.
RUN useradd --system --uid 10001 gecappraise && mkdir -p /var/cache/numba && chown gecappraise /var/cache/numba
USER gecappraise
EXPOSE 8000
CMD ["gunicorn", "-c", "python:gecappraise.gunicorn_conf", "gecappraise.wsgi"]
