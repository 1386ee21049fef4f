# Image for the web and worker services of docker-compose.yml.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY gecappraise gecappraise
COPY annotation annotation
COPY ranking ranking
RUN pip install --no-cache-dir .
COPY manage.py ./
COPY templates templates
COPY static static
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "gecappraise.wsgi", "--bind", "0.0.0.0:8000", "--workers", "4"]
