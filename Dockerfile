# Lookout: one image for the web server, the Celery worker and Celery beat.
# Build: docker build -t lookout .   Run the whole stack: see docker-compose.yml.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The processes run as this user; the code stays owned by root so they cannot change it.
RUN useradd --system --create-home --uid 10001 --user-group lookout

WORKDIR /app

# Requirements first, so a code change does not reinstall every package. Only the runtime
# lock: the test and tool packages in requirements-dev.txt stay out of the image.
# python-ldap (LDAP sign-in) is built here against Debian's OpenLDAP and SASL headers; the
# compiler goes again in the same layer, the libraries (and their headers) stay.
COPY requirements.txt ./
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev libldap2-dev libsasl2-dev \
    && pip install --require-hashes -r requirements.txt \
    && apt-get purge -y --auto-remove gcc \
    && rm -rf /var/lib/apt/lists/*

COPY . .

# Each language's JavaScript catalog as a static file, hashed and cached like the other
# scripts; written before collectstatic gathers it. Same throw-away key as below.
RUN LOOKOUT_PRODUCTION=true SECRET_KEY=build-only-not-a-real-secret \
        python manage.py build_js_catalogs

# Hashed, compressed static files are baked into the image and served by whitenoise.
# The key is a throw-away for this step only; it is not kept in the image's environment.
# var/ stays writable for the beat schedule (a volume in docker-compose.yml).
RUN LOOKOUT_PRODUCTION=true SECRET_KEY=build-only-not-a-real-secret \
        python manage.py collectstatic --noinput \
    && mkdir -p /app/var/beat \
    && chown -R lookout:lookout /app/var

USER lookout

EXPOSE 8000

# Worker counts live in GUNICORN_CMD_ARGS so .env can change them: gunicorn lets flags
# on the command line win over that variable. A TLS-terminating proxy sits in front.
ENV GUNICORN_CMD_ARGS="--workers 2 --threads 4"
CMD ["gunicorn", "config.wsgi", "--config", "python:config.gunicorn", "--bind", "0.0.0.0:8000", "--worker-tmp-dir", "/dev/shm"]
