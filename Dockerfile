# engage in a container: a slim, non-root image of the engage-platform wheel with its runtime extras.
#
#   docker build -t engage .
#   docker run -p 8000:8000 -e ENGAGE_SECRET_KEY=... -v engage-data:/var/lib/engage engage
#
# The build stage turns the source and every dependency into wheels; the runtime stage installs them
# from that directory alone (no compiler, no network, no source tree in the image).

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engage ./engage
COPY engage_core ./engage_core
COPY engage_sql ./engage_sql
COPY engage_connectors ./engage_connectors
COPY engage_http ./engage_http
COPY engage_cli ./engage_cli
COPY engage_testing ./engage_testing
RUN pip wheel --no-cache-dir --wheel-dir /wheels ".[all]"

FROM python:3.11-slim
# espeak-ng speaks the built-in voices offline (engage_connectors/voice/espeak.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends espeak-ng \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --create-home --uid 10001 engage \
    && mkdir -p /var/lib/engage && chown engage /var/lib/engage
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels "engage-platform[all]" && rm -rf /wheels
USER engage
WORKDIR /var/lib/engage
ENV ENGAGE_DATABASE_URL=sqlite:////var/lib/engage/engage.db \
    PYTHONUNBUFFERED=1
VOLUME ["/var/lib/engage"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
CMD ["engage", "serve", "--host", "0.0.0.0", "--port", "8000"]
