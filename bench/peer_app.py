"""The peer: `GET` and `POST /api/v1/contacts` as a FastAPI app over the SQLAlchemy ORM would serve
them, on the same PostgreSQL tables engage uses.

The way such services are commonly written: a session per request from a `sessionmaker` (a pool
of the default size), an API-key dependency that looks the key's digest up, declarative models,
`Pydantic` models for the body and the response, a `COUNT(*)` for the total, `ORDER BY ... LIMIT
... OFFSET` for the page, and `commit()` then `refresh()` after an insert. Synchronous endpoints,
so FastAPI runs them in its thread pool. Nothing in it is deliberately slow, and nothing is tuned.

Run as `uvicorn bench.peer_app:app_factory --factory` with `BENCH_PEER_DATABASE` set to the
PostgreSQL URL (`bench.postgres --peer` does).
"""

# No `from __future__ import annotations`: FastAPI reads the endpoints' annotations at run time, and
# they name the closures' dependencies.
import hashlib
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, FastAPI, Header, HTTPException, Query
from pydantic import BaseModel, Field
from sqlalchemy import BigInteger, Boolean, DateTime, String, Text, create_engine, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    is_active: Mapped[bool] = mapped_column(Boolean)
    key_digest: Mapped[str] = mapped_column(String(64))


class Contact(Base):
    __tablename__ = "contacts"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(255))
    name_key: Mapped[str] = mapped_column(Text)
    email: Mapped[str | None] = mapped_column(String(255))
    email_key: Mapped[str | None] = mapped_column(Text)
    phone: Mapped[str | None] = mapped_column(String(32))
    type: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    blacklisted: Mapped[bool] = mapped_column(Boolean)
    source: Mapped[str] = mapped_column(String(50))
    company: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ContactIn(BaseModel):
    name: str = Field(min_length=1, max_length=255)
    type: str = Field(pattern="^(whatsapp|telegram|instagram|linkedin)$")
    email: str | None = Field(default=None, max_length=255)
    phone: str | None = Field(default=None, max_length=32)
    company: str | None = Field(default=None, max_length=255)


class ContactOut(BaseModel):
    model_config = {"from_attributes": True}

    id: int
    name: str
    email: str | None
    phone: str | None
    type: str
    status: str
    blacklisted: bool
    source: str
    company: str | None
    created_at: datetime
    updated_at: datetime


class Pagination(BaseModel):
    total: int
    per_page: int
    current_page: int
    last_page: int


class ContactPage(BaseModel):
    success: bool = True
    data: list[ContactOut]
    pagination: Pagination


class ContactCreated(BaseModel):
    success: bool = True
    data: ContactOut


def app_factory() -> FastAPI:
    engine = create_engine(os.environ["BENCH_PEER_DATABASE"].replace("postgresql://", "postgresql+psycopg://", 1))
    sessions = sessionmaker(engine)
    app = FastAPI()

    def session() -> Iterator[Session]:
        with sessions() as db:
            yield db

    def account(db: Annotated[Session, Depends(session)], x_api_key: Annotated[str, Header()]) -> Account:
        digest = hashlib.sha256(x_api_key.encode()).hexdigest()
        found = db.scalars(select(Account).where(Account.key_digest == digest, Account.is_active)).first()
        if found is None:
            raise HTTPException(status_code=401, detail="Invalid API key")
        return found

    @app.get("/api/v1/contacts", response_model=ContactPage)
    def list_contacts(
        db: Annotated[Session, Depends(session)],
        owner: Annotated[Account, Depends(account)],
        page: Annotated[int, Query(ge=1)] = 1,
        per_page: Annotated[int, Query(ge=1, le=100)] = 15,
    ) -> ContactPage:
        total = db.scalar(select(func.count()).select_from(Contact).where(Contact.account_id == owner.id)) or 0
        rows = db.scalars(
            select(Contact)
            .where(Contact.account_id == owner.id)
            .order_by(Contact.created_at.desc(), Contact.id.desc())
            .limit(per_page)
            .offset((page - 1) * per_page)
        ).all()
        last = max(1, -(-total // per_page))
        return ContactPage(
            data=[ContactOut.model_validate(row) for row in rows],
            pagination=Pagination(total=total, per_page=per_page, current_page=page, last_page=last),
        )

    @app.post("/api/v1/contacts", response_model=ContactCreated, status_code=201)
    def create_contact(
        body: ContactIn, db: Annotated[Session, Depends(session)], owner: Annotated[Account, Depends(account)]
    ) -> ContactCreated:
        now = datetime.now(UTC)
        contact = Contact(
            account_id=owner.id,
            name=body.name,
            name_key=body.name.casefold(),
            email=body.email,
            email_key=None if body.email is None else body.email.casefold(),
            phone=body.phone,
            type=body.type,
            status="active",
            blacklisted=False,
            source="api",
            company=body.company,
            created_at=now,
            updated_at=now,
        )
        db.add(contact)
        db.commit()
        db.refresh(contact)
        return ContactCreated(data=ContactOut.model_validate(contact))

    return app
