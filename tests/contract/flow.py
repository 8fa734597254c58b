"""A short flow through the client openapi-python-client generated from Tally's
published document, against a real server: what an integrator would do first.
Every answer is parsed by the generated models; an undocumented status raises.
"""

import io
import os
import sys
import time
import uuid

from tally_api_client import AuthenticatedClient, Client
from tally_api_client.api.customer_management import create_customer, get_customer, list_customers
from tally_api_client.api.identity import login
from tally_api_client.api.imports import get_job, list_errors, upload_file
from tally_api_client.types import File
from tally_api_client.models import (
    CreateCustomerBody,
    CustomerViewEnvelope,
    CustomerViewPage,
    ErrorEnvelope,
    ImportJobViewEnvelope,
    ImportRowErrorViewPage,
    LoginBody,
    SessionEnvelope,
)

BASE_URL = os.environ["TALLY_URL"]


def expect(condition, what):
    if not condition:
        sys.exit(f"contract flow failed: {what}")
    print(f"ok: {what}")


def main():
    anonymous = Client(base_url=BASE_URL, raise_on_unexpected_status=True)
    session = login.sync_detailed(
        client=anonymous,
        body=LoginBody(email=os.environ["TALLY_ADMIN_EMAIL"], password=os.environ["TALLY_ADMIN_PASSWORD"]),
    )
    expect(session.status_code == 200 and isinstance(session.parsed, SessionEnvelope), "log in")
    token = session.parsed.data.access_token
    client = AuthenticatedClient(base_url=BASE_URL, token=token, raise_on_unexpected_status=True)

    wrong = login.sync_detailed(client=anonymous, body=LoginBody(email="nobody@tally.test", password="wrong password"))
    expect(wrong.status_code == 401 and isinstance(wrong.parsed, ErrorEnvelope), "a wrong login is a typed 401")

    suffix = uuid.uuid4().hex[:8]
    created = create_customer.sync_detailed(
        client=client,
        body=CreateCustomerBody(name=f"Ada {suffix}", email=f"ada-{suffix}@example.com", tags=["vip"]),
    )
    expect(created.status_code == 201 and isinstance(created.parsed, CustomerViewEnvelope), "create a customer")
    customer = created.parsed.data
    expect(customer.status == "lead" and customer.tags == ["vip"], "the created customer has its defaults")

    read = get_customer.sync_detailed(client=client, id=customer.id)
    expect(read.status_code == 200 and read.parsed.data.email == f"ada-{suffix}@example.com", "read it back")

    missing = get_customer.sync_detailed(client=client, id=uuid.uuid4())
    expect(
        missing.status_code == 404
        and isinstance(missing.parsed, ErrorEnvelope)
        and missing.parsed.error.code == "CUSTOMER_NOT_FOUND",
        "a missing customer is a typed 404",
    )

    for n in range(2):
        extra = create_customer.sync_detailed(
            client=client, body=CreateCustomerBody(name=f"Extra {n}", email=f"extra-{n}-{suffix}@example.com")
        )
        expect(extra.status_code == 201, f"create customer {n + 2}")
    page = list_customers.sync_detailed(client=client, page=1, page_size=2, search=suffix)
    expect(page.status_code == 200 and isinstance(page.parsed, CustomerViewPage), "list a page")
    expect(len(page.parsed.data) == 2 and page.parsed.pagination.total == 3, "the page holds 2 of 3")
    expect(page.parsed.pagination.total_pages == 2, "two pages in all")
    second = list_customers.sync_detailed(client=client, page=2, page_size=2, search=suffix)
    expect(len(second.parsed.data) == 1, "the second page holds the last one")

    invalid = create_customer.sync_detailed(client=client, body=CreateCustomerBody(name="", email="not an email"))
    expect(invalid.status_code == 400 and isinstance(invalid.parsed, ErrorEnvelope), "bad input is a typed 400")

    csv = f"name,email\nImported {suffix},imported-{suffix}@example.com\nBad,not an email\n".encode()
    queued = upload_file.sync_detailed(
        client=client, resource="customers", body=File(payload=io.BytesIO(csv), mime_type="text/csv")
    )
    expect(queued.status_code == 202 and isinstance(queued.parsed, ImportJobViewEnvelope), "upload a small CSV")
    job = queued.parsed.data
    for _ in range(200):
        job = get_job.sync_detailed(client=client, id=job.id).parsed.data
        if job.status not in ("queued", "running"):
            break
        time.sleep(0.1)
    expect(job.status == "succeeded" and job.created == 1 and job.failed_rows == 1, "the import job ran")
    errors = list_errors.sync_detailed(client=client, id=job.id)
    expect(
        isinstance(errors.parsed, ImportRowErrorViewPage) and errors.parsed.data[0].row == 2,
        "its row error names row 2",
    )


if __name__ == "__main__":
    main()
